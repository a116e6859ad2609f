import { Client } from "@roundtrip/sdk";

const client = new Client("http://localhost:3000/mcp", { cache: true });
const controller = new AbortController();
for await (const event of client.listen({ toolsListChanged: true }, { signal: controller.signal })) {
  // An acknowledgement comes first and after every reconnection: the list may have changed meanwhile.
  const { tools } = await client.listTools({ all: true });
  console.log(`${event.type}: ${tools.length} tools`);
}
