import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";

/**
 * CORS for browser-based MCP clients on the allow-listed origins only. The challenge and the limits
 * are exposed so a browser client can read them, and so is `Mcp-Session-Id`: a 2025-era client must
 * read it from the initialize response to send it on every later request, and ends its session with
 * DELETE. `DPoP-Nonce` too: a browser client holding DPoP-bound tokens must read the nonce a refusal
 * carries to make its next proof. Request headers are reflected, which covers the per-tool `Mcp-Param-*` headers no fixed
 * list could. No credentials mode: tokens travel in Authorization, never in cookies.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: [...origins],
    methods: ["GET", "HEAD", "POST", "DELETE"],
    exposedHeaders: [
      "WWW-Authenticate",
      "Retry-After",
      "X-Request-Id",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "Mcp-Session-Id",
      "DPoP-Nonce",
    ],
    credentials: false,
    maxAge: 600,
  });
}
