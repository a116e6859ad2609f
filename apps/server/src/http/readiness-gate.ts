import type { FastifyInstance } from "fastify";
import type { Keyring } from "../keyring/keyring.js";

/**
 * Until the request-state keys are loaded nothing can be sealed or opened, so MCP requests are turned
 * away with 503 and Retry-After instead of failing halfway through a round.
 */
export function gateOnKeyring(scope: FastifyInstance, keyring: Pick<Keyring, "status">): void {
  scope.addHook("onRequest", async (_request, reply) => {
    if (keyring.status === "ready") return;
    if (keyring.status === "failed") {
      return reply.code(503).send({
        error: "Service unavailable: the request-state keys failed to load; the server log says why",
      });
    }
    return reply
      .code(503)
      .header("retry-after", 1)
      .send({ error: "Service unavailable: the server is loading its request-state keys; retry shortly" });
  });
}
