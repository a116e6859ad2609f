import type { ServerSource } from "../server.js";
import { FetchRequestHead, readFetchBody } from "./fetch-request.js";
import { FetchResponseWriter } from "./fetch-response-writer.js";
import { createHttpExchange, type HttpHandlerOptions } from "./http-server.js";
import type { RequestHead } from "./request-head.js";

/** Options of createFetchHandler: the authenticate hook reads a RequestHead, the headers in Node's shape. */
export type FetchHandlerOptions = HttpHandlerOptions<RequestHead>;

/** A web-standard handler: one Request in, one Response out (an SSE Response streams its body). */
export type FetchMcpHandler = (request: Request) => Promise<Response>;

/**
 * Streamable HTTP for any host that speaks web Request and Response: Deno, Bun, Cloudflare Workers,
 * Hono, Node behind a fetch adapter. The same exchange as createNodeHandler, so the same checks,
 * statuses and 2025-era sessions; the client going away is seen through `request.signal` and through
 * a streamed body's cancellation.
 */
export function createFetchHandler(source: ServerSource, options: FetchHandlerOptions = {}): FetchMcpHandler {
  const exchange = createHttpExchange(source, options, readFetchBody);
  return (request) => {
    const writer = new FetchResponseWriter(request.signal);
    // The Response is due when its headers are, not when the exchange ends: an SSE stream outlives it.
    void exchange(new FetchRequestHead(request), writer).finally(() => {
      // Nothing was written only when the client had gone already; the host still wants a Response.
      if (!writer.headersSent) writer.end();
    });
    return writer.response;
  };
}
