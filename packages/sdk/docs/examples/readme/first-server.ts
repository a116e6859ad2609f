import { createServer } from "node:http";
import { createNodeHandler, McpServer } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });

mcp.tool(
  "add",
  { description: "Adds two numbers", input: z.object({ a: z.number(), b: z.number() }) },
  ({ a, b }) => String(a + b),
);

const handler = createNodeHandler(mcp.server);
createServer((req, res) => void handler(req, res)).listen(3000);
