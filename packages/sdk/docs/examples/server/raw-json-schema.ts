import { McpServer } from "@roundtrip/sdk";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });

mcp.tool(
  "echo",
  { input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  ({ text }) => String(text),
);
