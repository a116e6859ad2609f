import type { FastifyInstance } from "fastify";

/**
 * The MCP transport writes its response on the raw Node response (the route hijacks the reply), which
 * skips headers that hooks set through Fastify (CORS, rate-limit counters, the request id). Copying
 * them onto the raw response first keeps them; the transport's own headers still win on a clash.
 */
export function keepHookHeaders(scope: FastifyInstance): void {
  scope.addHook("preHandler", async (_request, reply) => {
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
  });
}
