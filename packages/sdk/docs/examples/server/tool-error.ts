import { McpServer, ToolError } from "@roundtrip/sdk";

const mcp = new McpServer({ name: "infra", version: "1.0.0" }, { paramsLimits: { maxDepth: 32 } });

mcp.tool("deploy", {}, () => {
  throw new ToolError("The deploy window is closed until 18:00 UTC");
});
