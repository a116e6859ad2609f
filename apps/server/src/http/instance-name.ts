import type { FastifyInstance } from "fastify";

/** Response header naming the instance that answered, when INSTANCE_NAME is set. */
export const INSTANCE_HEADER = "roundtrip-instance";

/**
 * Behind a load balancer every instance answers for one URL; the header lets a client or an operator
 * tell which one served a request without reading every instance's log. Opt-in, since it reveals the
 * fleet's layout to whoever calls.
 */
export function nameInstance(app: FastifyInstance, name: string | undefined): void {
  if (name === undefined) return;
  app.addHook("onRequest", async (_request, reply) => {
    reply.header(INSTANCE_HEADER, name);
  });
}
