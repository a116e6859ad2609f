import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ask, Client, createNodeHandler, McpServer, resolver } from "@roundtrip/sdk";
import * as z from "zod";

// The provisioning server of asking-the-user.md, on a free local port for the length of one call.
const mcp = new McpServer({ name: "infra", version: "1.0.0" });
const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });
const region = resolver(({ args }: { args: { service: string } }) =>
  ask.elicit(`Where should ${args.service} run?`, Region),
);
mcp.tool(
  "provision",
  { input: z.object({ service: z.string() }), resolve: { region } },
  ({ service }, { region }) => `Provisioned ${service} in ${region.region}`,
);
const handler = createNodeHandler(mcp.server);
const http = createServer((req, res) => void handler(req, res)).listen(0, "127.0.0.1");
await once(http, "listening");
const { port } = http.address() as AddressInfo;

const client = new Client(`http://127.0.0.1:${port}/mcp`, {
  onElicit: () => ({ action: "accept", content: { region: "eu-west-1" } }),
});
const result = await client.callTool("provision", { service: "api" });
console.log(JSON.stringify(result.content)); // [{"type":"text","text":"Provisioned api in eu-west-1"}]

await client.close();
http.close();
