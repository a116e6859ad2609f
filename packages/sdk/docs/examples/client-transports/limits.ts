import { Client, HttpClientTransport } from "@roundtrip/sdk";

const transport = new HttpClientTransport("https://tools.example.com/mcp", {
  maxResponseBytes: 64 * 1024 * 1024, // this server's resources are large
  maxEventChars: 1024 * 1024,
});
const client = new Client(transport, { requestTimeoutMs: 120_000, connectTimeoutMs: 10_000 });
await client.listTools();
await client.callTool("export", {}, { requestTimeoutMs: 0 }); // this one may take as long as it takes
