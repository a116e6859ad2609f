import { type JsonRpcErrorObject, McpError } from "./errors.js";
import { isRecord } from "./is-record.js";
import type { RequestId } from "./schemas/common.js";
import { JSONRPC_VERSION } from "./versions.js";

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id?: RequestId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type InboundMessage =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification };

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/**
 * Classifies one decoded JSON value sent to a server. 2026-07-28 has no batching and clients never
 * send responses, so both are invalid requests here.
 */
export function parseInboundMessage(value: unknown): InboundMessage {
  if (Array.isArray(value)) {
    throw McpError.invalidRequest("Batch requests are not supported: send one JSON-RPC message per request");
  }
  if (!isRecord(value) || value.jsonrpc !== JSONRPC_VERSION) {
    throw McpError.invalidRequest('Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0"');
  }
  if (typeof value.method !== "string") {
    if ("result" in value || "error" in value) {
      throw McpError.invalidRequest("Invalid Request: a 2026-07-28 server accepts no JSON-RPC responses");
    }
    throw McpError.invalidRequest('Invalid Request: "method" must be a string');
  }
  if (value.params !== undefined && !isRecord(value.params)) {
    throw McpError.invalidRequest('Invalid Request: "params" must be an object');
  }
  if (!("id" in value)) {
    return { kind: "notification", message: value as unknown as JsonRpcNotification };
  }
  if (!isRequestId(value.id)) {
    throw McpError.invalidRequest('Invalid Request: "id" must be a string or an integer');
  }
  return { kind: "request", message: value as unknown as JsonRpcRequest };
}

/** The id of a message that failed classification, when one can still be read. */
export function readRequestId(value: unknown): RequestId | undefined {
  return isRecord(value) && isRequestId(value.id) ? value.id : undefined;
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

export function errorResponse(id: RequestId | undefined, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return id === undefined ? { jsonrpc: JSONRPC_VERSION, error } : { jsonrpc: JSONRPC_VERSION, id, error };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined
    ? { jsonrpc: JSONRPC_VERSION, method }
    : { jsonrpc: JSONRPC_VERSION, method, params };
}

export function isErrorResponse(message: JsonRpcResponse): message is JsonRpcErrorResponse {
  return "error" in message;
}

/** What a client received from a server: one classifier for every client transport. */
export type ServerMessage =
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "notification"; message: JsonRpcNotification }
  /** A server-to-client request: 2026-07-28 forbids them, a 2025-era session answers them. */
  | { kind: "request"; method: string; message: JsonRpcRequest }
  | { kind: "invalid" };

export function classifyServerMessage(value: unknown): ServerMessage {
  if (!isRecord(value) || value.jsonrpc !== JSONRPC_VERSION) return { kind: "invalid" };
  if ("result" in value || "error" in value) {
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  if (typeof value.method !== "string") return { kind: "invalid" };
  if ("id" in value) {
    if (!isRequestId(value.id)) return { kind: "invalid" };
    return { kind: "request", method: value.method, message: value as unknown as JsonRpcRequest };
  }
  return { kind: "notification", message: value as unknown as JsonRpcNotification };
}
