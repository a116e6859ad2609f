import { serve } from "@hono/node-server";
import { createFetchHandler, McpServer } from "@roundtrip/sdk/server";
import { Hono } from "hono";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
mcp.tool("hello", {}, () => "hello");
const handler = createFetchHandler(mcp);

const app = new Hono();
app.all("/mcp", (c) => handler(c.req.raw));

// Bun, Deno and Workers serve `export default app` themselves; plain Node needs Hono's Node adapter.
serve({ fetch: app.fetch, port: 3000 });
export default app;
