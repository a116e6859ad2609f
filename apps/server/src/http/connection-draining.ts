import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

/**
 * On close, Fastify drops the connections that are idle at that moment; a connection busy with an
 * in-flight request becomes idle only after its response, and a keep-alive client would then hold it
 * open until its own timeout, stalling shutdown. So each in-flight response is sent with
 * `Connection: close`, and its connection ends as soon as the response is out.
 *
 * Node 22 and 24 do not count a connection that has not sent its first request as idle (26 does), so
 * a pre-connecting load balancer or an abandoned probe would hold the drain until the shutdown
 * timeout. Those connections carry no work: they are destroyed, and a proxy re-sends elsewhere.
 */
export function endConnectionsAfterDraining(app: FastifyInstance): void {
  const inFlight = new Set<ServerResponse>();
  const unused = new Set<Socket>();
  app.server.on("connection", (socket: Socket) => {
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
  });
  app.server.on("request", (request: { socket: Socket }) => unused.delete(request.socket));
  app.addHook("onRequest", async (_request, reply) => {
    const response = reply.raw;
    inFlight.add(response);
    response.once("close", () => inFlight.delete(response));
  });
  app.addHook("preClose", async () => {
    for (const socket of unused) socket.destroy();
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader("connection", "close");
      response.once("finish", () => response.socket?.end());
    }
  });
}
