import { Pool } from "undici";
import type { WireRequest } from "../wire/mcp-request.js";
import type { RawReply } from "../wire/reply.js";

/** Loopback only: the harness never sends load anywhere else. */
const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** A reply whose body is still arriving. */
export interface OpenReply {
  status: number;
  contentType: string | undefined;
  /** The `Mcp-Session-Id` the server sent, if any. */
  sessionId: string | undefined;
  body: AsyncIterable<Uint8Array> & { text(): Promise<string> };
}

export interface PostClient {
  post(message: WireRequest): Promise<RawReply>;
  /** The reply as soon as its headers are in, for streams the flow acts on while they last. */
  open(message: WireRequest): Promise<OpenReply>;
  close(): void;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
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
  const open = async (message: WireRequest): Promise<OpenReply> => {
    const { statusCode, headers, body } = await pool.request({
      method: "POST",
      path,
      headers: message.headers,
      body: message.body,
    });
    return {
      status: statusCode,
      contentType: single(headers["content-type"]),
      sessionId: single(headers["mcp-session-id"]),
      body,
    };
  };
  return {
    open,
    post: async (message) => {
      const reply = await open(message);
      return { status: reply.status, contentType: reply.contentType, body: await reply.body.text() };
    },
    close: () => {
      // Like closing the sockets: a request still in flight fails rather than holding the process.
      pool.destroy().catch(() => undefined);
    },
  };
}
