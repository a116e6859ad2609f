import { Pool } from "undici";
import type { WireRequest } from "../wire/mcp-request.js";
import type { RawReply } from "../wire/reply.js";

/** Loopback only: the harness never sends load anywhere else. */
const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export interface PostClient {
  post(message: WireRequest): Promise<RawReply>;
  close(): void;
}

/**
 * HTTP/1.1 POSTs through an undici Pool: one keep-alive connection per concurrent flow, one request
 * at a time on each (no pipelining, so a slow answer never holds up another flow's). It does no MCP
 * work of its own, so it costs every target the same and favours neither SDK; the body is read as
 * text and wire/reply.ts makes sense of it (JSON or SSE).
 */
export function createPostClient(
  host: string,
  port: number,
  options: { sockets: number; timeoutMs: number; path?: string },
): PostClient {
  if (!LOOPBACK.test(host)) throw new Error(`refusing to send load to ${host}: loopback addresses only`);
  const pool = new Pool(`http://${host}:${port}`, {
    connections: options.sockets,
    pipelining: 1,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const path = options.path ?? "/mcp";
  return {
    post: async (message) => {
      const { statusCode, headers, body } = await pool.request({
        method: "POST",
        path,
        headers: message.headers,
        body: message.body,
      });
      const type = headers["content-type"];
      return {
        status: statusCode,
        contentType: Array.isArray(type) ? type[0] : type,
        body: await body.text(),
      };
    },
    close: () => {
      // Like closing the sockets: a request still in flight fails rather than holding the process.
      pool.destroy().catch(() => undefined);
    },
  };
}
