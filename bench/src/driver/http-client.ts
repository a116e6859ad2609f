import { Agent as ConnectionPool, request } from "node:http";
import type { WireRequest } from "../wire/mcp-request.js";
import type { RawReply } from "../wire/reply.js";

/** Loopback only: the harness never sends load anywhere else. */
const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export interface PostClient {
  post(message: WireRequest): Promise<RawReply>;
  close(): void;
}

/**
 * Raw HTTP/1.1 POSTs over a keep-alive pool with one socket per concurrent flow. It does no MCP work
 * of its own, so it costs every target the same and favours neither SDK.
 */
export function createPostClient(
  host: string,
  port: number,
  options: { sockets: number; timeoutMs: number; path?: string },
): PostClient {
  if (!LOOPBACK.test(host)) throw new Error(`refusing to send load to ${host}: loopback addresses only`);
  const pool = new ConnectionPool({ keepAlive: true, maxSockets: options.sockets, scheduling: "fifo" });
  const path = options.path ?? "/mcp";
  return {
    post: (message) =>
      new Promise<RawReply>((resolve, reject) => {
        const req = request(
          { host, port, path, method: "POST", agent: pool, headers: message.headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                contentType: res.headers["content-type"],
                body: Buffer.concat(chunks).toString("utf8"),
              }),
            );
            res.on("error", reject);
          },
        );
        req.setTimeout(options.timeoutMs, () =>
          req.destroy(new Error(`no answer in ${options.timeoutMs} ms`)),
        );
        req.on("error", reject);
        req.end(message.body);
      }),
    close: () => pool.destroy(),
  };
}
