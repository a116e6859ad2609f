import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "../../server/server.js";
import { createNodeHandler } from "../../server/transport/http-server.js";

export interface SeenRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface HttpPeer {
  url: string;
  /** Every request, headers and parsed body (empty for GET and DELETE), in arrival order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

type Respond = (request: SeenRequest, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

/** A real HTTP server on 127.0.0.1 and an ephemeral port that records each request before answering it. */
async function listen(respond: Respond): Promise<HttpPeer> {
  const seen: SeenRequest[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    // A GET or DELETE (2025-era sessions) has no body.
    const request = { headers: req.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    seen.push(request);
    await respond(request, res, req);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A Roundtrip Server behind createNodeHandler, which checks every header against the body. */
export function serveOverHttp(server: Server): Promise<HttpPeer> {
  const handle = createNodeHandler(server);
  // The body is already read (and recorded): hand it over, as frameworks that parse bodies do.
  return listen((request, res, req) => handle(req, res, JSON.stringify(request.body)));
}

/** A server scripted by the test, to send what a Roundtrip Server never would. */
export function serveScripted(respond: Respond): Promise<HttpPeer> {
  return listen(respond);
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export function discoverResult(id: unknown): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "1" } },
    },
  };
}
