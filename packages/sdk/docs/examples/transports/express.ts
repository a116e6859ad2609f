import { createNodeHandler, McpServer } from "@roundtrip/sdk/server";
import express from "express";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
mcp.tool("hello", {}, () => "hello");
const handle = createNodeHandler(mcp);

const app = express();
app.all("/mcp", (req, res) => handle(req, res, req.body));
app.use(express.json()); // the app's own JSON routes, after the MCP one
app.listen(3000);
