import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * On close, Fastify drops the connections that are idle at that moment; a connection busy with an
 * in-flight request becomes idle only after its response, and a keep-alive client would then hold it
 * open until its own timeout, stalling shutdown. So each in-flight response is sent with
 * `Connection: close`, and its connection ends as soon as the response is out.
 */
export function endConnectionsAfterDraining(app: FastifyInstance): void {
  const inFlight = new Set<ServerResponse>();
  app.addHook("onRequest", async (_request, reply) => {
    const response = reply.raw;
    inFlight.add(response);
    response.once("close", () => inFlight.delete(response));
  });
  app.addHook("preClose", async () => {
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader("connection", "close");
      response.once("finish", () => response.socket?.end());
    }
  });
}
