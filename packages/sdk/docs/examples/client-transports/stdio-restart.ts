import { Client, StdioClientTransport } from "@roundtrip/sdk";

const transport = new StdioClientTransport({
  command: "node",
  args: ["server.js"],
  restart: { maxRestarts: 5, delayMs: 200 },
});
const client = new Client(transport);
console.log((await client.listTools()).tools.length, transport.restarts);
