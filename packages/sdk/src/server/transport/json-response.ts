import { McpError } from "../../protocol/errors.js";
import {
  errorResponse,
  type InboundMessage,
  parseInboundMessage,
  readRequestId,
} from "../../protocol/jsonrpc.js";
import type { HttpError } from "./http-errors.js";
import type { ResponseWriter } from "./response-writer.js";

/** `body` as JSON, or no body when it is undefined; nothing once a stream has sent its headers. */
export function sendJson(
  res: ResponseWriter,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** A JSON-RPC error without id where the refusal has a code, so JSON-RPC clients can read it too. */
export function httpErrorBody(error: HttpError): unknown {
  return error.rpcCode === undefined
    ? { error: error.message }
    : errorResponse(undefined, { code: error.rpcCode, message: error.message });
}

export function sendHttpError(res: ResponseWriter, error: HttpError): void {
  sendJson(res, error.status, httpErrorBody(error), { ...error.headers });
}

/**
 * The POSTed JSON-RPC message, or undefined once a 400 carrying the JSON-RPC error has answered a body
 * that is not one: both eras refuse a malformed message the same way, before any session is looked up.
 */
export function inboundOrRefuse(res: ResponseWriter, value: unknown): InboundMessage | undefined {
  try {
    return parseInboundMessage(value);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    sendJson(res, 400, errorResponse(readRequestId(value), error.toJSON()));
    return undefined;
  }
}
