import { mcpFastify } from "@roundtrip/sdk/fastify";
import { McpServer } from "@roundtrip/sdk/server";
import Fastify from "fastify";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
mcp.tool("hello", {}, () => "hello");

const app = Fastify();
await app.register(mcpFastify, {
  server: mcp,
  path: "/mcp", // the default
  maxBodyBytes: 1_000_000, // refused with 413 and -32600 while Fastify reads it, before any parser
  maxBodyDepth: 32, // nesting, checked before JSON.parse walks the body
  allowedHosts: ["mcp.example.com"], // Host must name one of them (DNS rebinding)
  allowedOrigins: ["https://app.example.com"], // browsers' Origin, when one is sent
});
app.get("/healthz", () => ({ ok: true })); // the app's other routes stay its own
await app.listen({ port: 3000 });
