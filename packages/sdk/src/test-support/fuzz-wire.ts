import { request } from "node:http";
import { expect } from "vitest";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * One request over node:http with exactly the headers given (plus Host, Content-Length and
 * Connection), on a fresh connection so one bad request cannot leave a socket in a state that spoils
 * the next.
 */
export function rawRequest(url: string, message: RawRequest): Promise<RawResponse> {
  const target = new URL(url);
  const body = message.body === undefined ? undefined : Buffer.from(message.body, "utf8");
  // A fresh connection each time: "close" keeps the default pool from reusing the socket.
  const headers: Record<string, string> = { ...message.headers, connection: "close" };
  if (body !== undefined) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: message.method ?? "POST",
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Which JSON-RPC error codes each HTTP status may carry (Streamable HTTP 2026-07-28 and our README). */
export const CODES_BY_STATUS: Readonly<Record<number, readonly number[]>> = {
  200: [-32602],
  400: [-32700, -32600, -32602, -32020, -32021, -32022],
  403: [-32600],
  // 2025-era sessions: 404 for an unknown or expired one, 409 for a second GET stream, 429 at the cap.
  404: [-32601, -32600],
  405: [-32600],
  406: [-32600],
  409: [-32600],
  429: [-32600],
  413: [-32600],
  415: [-32600],
};

/**
 * A 2025-era session answers JSON-RPC errors in-band (200), as that era's servers do; the statuses are
 * for the transport's own refusals. -32603 stays out: a fuzzed input must never reach an internal error.
 */
export const LEGACY_CODES_BY_STATUS: Readonly<Record<number, readonly number[]>> = {
  ...CODES_BY_STATUS,
  200: [-32600, -32601, -32602, -32021],
};

type JsonRpcReply =
  | { id?: unknown; result: Record<string, unknown> }
  | { id?: unknown; error: { code: number; message: string; data?: unknown } };

function mediaType(headers: RawResponse["headers"]): string | undefined {
  const value = headers["content-type"];
  return (Array.isArray(value) ? value[0] : value)?.split(";")[0]?.trim().toLowerCase();
}

/** The JSON-RPC messages of a body: one for JSON, one per event for SSE. */
function messagesOf(response: RawResponse): unknown[] {
  const type = mediaType(response.headers);
  if (type === "application/json") return [JSON.parse(response.body)];
  expect(type, `status ${response.status} body ${response.body}`).toBe("text/event-stream");
  return response.body
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data));
}

function expectWellFormed(message: unknown, context: string): asserts message is JsonRpcReply {
  expect(message, context).toBeTypeOf("object");
  const value = message as Record<string, unknown>;
  expect(value.jsonrpc, context).toBe("2.0");
  expect("result" in value !== "error" in value, `${context}: exactly one of result and error`).toBe(true);
  if ("error" in value) {
    const error = value.error as Record<string, unknown>;
    expect(Number.isInteger(error.code), context).toBe(true);
    expect(error.message, context).toBeTypeOf("string");
  } else {
    expect(value.result, context).toBeTypeOf("object");
  }
  if ("id" in value) expect(["string", "number"], context).toContain(typeof value.id);
}

/**
 * The invariant every answer keeps, whatever was sent: no 5xx; a documented status; a body that is a
 * well-formed JSON-RPC response whose error code fits the status; an id only when the request had a
 * readable one, and then the same. Returns the final response for more specific checks.
 */
export function expectDocumentedAnswer(
  response: RawResponse,
  sentId: unknown,
  method = "POST",
  codes: Readonly<Record<number, readonly number[]>> = CODES_BY_STATUS,
): JsonRpcReply | undefined {
  const context = `HTTP ${response.status}: ${response.body.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);
  if (response.status === 202) {
    expect(response.body, context).toBe("");
    return undefined;
  }
  expect(Object.keys(codes).map(Number), context).toContain(response.status);
  if (response.status === 405)
    expect(["POST", "POST, GET, DELETE"], context).toContain(response.headers.allow);
  if (method === "HEAD") return undefined;
  const messages = messagesOf(response);
  expect(messages.length, context).toBeGreaterThan(0);
  for (const message of messages.slice(0, -1)) {
    expect(
      (message as { method?: unknown }).method,
      `${context}: only notifications precede the response`,
    ).toBeTypeOf("string");
  }
  const final = messages.at(-1);
  expectWellFormed(final, context);
  if ("error" in final) {
    expect(codes[response.status], context).toContain(final.error.code);
  } else {
    expect(response.status, context).toBe(200);
  }
  const readableId = typeof sentId === "string" || (typeof sentId === "number" && Number.isInteger(sentId));
  if ("id" in final) expect(final.id, context).toEqual(sentId);
  else if ("result" in final) expect(readableId, context).toBe(false);
  return final;
}
