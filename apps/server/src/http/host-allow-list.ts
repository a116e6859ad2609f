import { hostAllowed } from "@roundtrip/sdk/server";
import type { FastifyInstance } from "fastify";

/**
 * The Host allow-list (ALLOWED_HOSTS, or loopback names for a loopback bind) on every route, not only
 * the MCP endpoint: a rebound name reaching the approval page or the metadata is the same attack.
 */
export function allowHosts(app: FastifyInstance, allowedHosts: readonly string[] | undefined): void {
  if (allowedHosts === undefined) return;
  app.addHook("onRequest", async (request, reply) => {
    if (hostAllowed(request.headers.host, allowedHosts)) return;
    return reply
      .code(403)
      .type("text/plain")
      .send("Forbidden: this Host is not served here (see ALLOWED_HOSTS)");
  });
}
