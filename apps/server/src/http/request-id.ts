import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

const REQUEST_ID_HEADER = "x-request-id";
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Keeps a proxy's request id so log lines can be joined across hops, but only a short, plain one:
 * a client controls that header, and its value lands in every log line of the request.
 */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === "string" && SAFE_ID.test(incoming) ? incoming : randomUUID();
}

/** Echoes the id to the client, which can quote it when reporting a problem. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
}
