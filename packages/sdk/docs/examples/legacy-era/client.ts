import { Client, type ProtocolEra } from "@roundtrip/sdk";

const client = new Client("https://tools.example.com/mcp", {
  // "auto" is the default: probe with server/discover, open a session when the answer is a 2025 one.
  era: "auto",
  onElicit: () => ({ action: "accept", content: { region: "eu-west-1" } }),
  onListRoots: () => ({ roots: [{ uri: "file:///srv/app", name: "app" }] }),
  onListChanged: (list) => console.log(`the server's ${list} changed`),
});
const result = await client.callTool("provision", { service: "api" });
console.log(client.era, client.protocolVersion, result.content);

// Remember the era for next time: knownEra skips the probe (and recovers if the server changed).
const era: ProtocolEra | undefined = client.era;
const next = new Client("https://tools.example.com/mcp", { knownEra: era });
await next.listTools();
await Promise.all([client.close(), next.close()]);
