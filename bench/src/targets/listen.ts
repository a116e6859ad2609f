import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { RedisCommandWindow } from "./redis-command-counter.js";

export const BENCH_HOST = "127.0.0.1";

export interface Listening {
  port: number;
  close(): Promise<void>;
  /** For a target that owns a redis-server: its command counts, for the harness's measured window. */
  redisCommands?: RedisCommandWindow;
}

/** Plain node:http on loopback and an ephemeral port, with Node's default server settings. */
export async function listenNode(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, BENCH_HOST, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function listenFastify(app: FastifyInstance): Promise<Listening> {
  await app.listen({ port: 0, host: BENCH_HOST });
  const { port } = app.server.address() as AddressInfo;
  return { port, close: () => app.close() };
}
