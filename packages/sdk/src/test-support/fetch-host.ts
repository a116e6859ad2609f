import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Server } from "../server/server.js";
import { closeHttp, type RunningHttpServer } from "./http.js";

/**
 * Serves a fetch handler with Hono's Node adapter on 127.0.0.1, an ephemeral port. The adapter is
 * told to leave the globals alone, so the handler meets Node's own Request and Response. `mcp`, when
 * given, is closed with it.
 */
export async function startFetchServer(
  fetch: (request: Request) => Response | Promise<Response>,
  mcp?: Server,
): Promise<RunningHttpServer> {
  let http: ReturnType<typeof serve> | undefined;
  const { port } = await new Promise<AddressInfo>((resolve) => {
    http = serve({ fetch, port: 0, hostname: "127.0.0.1", overrideGlobalObjects: false }, resolve);
  });
  const server = http as HttpServer;
  // The same keep-alive race as startHttpServer's: past Node's 5 s default the server may close an
  // idle connection just as fetch sends the next request on it (ECONNRESET on a stalled machine).
  server.keepAliveTimeout = 120_000;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    http: server,
    close: () => closeHttp(server, mcp),
  };
}
