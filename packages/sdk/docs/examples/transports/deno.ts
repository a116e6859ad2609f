import { createFetchHandler, McpServer } from "@roundtrip/sdk/server";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
mcp.tool("hello", {}, () => "hello");

export default { fetch: createFetchHandler(mcp) };
