import { carrierTarget } from "../protocol/carriers.js";
import { encodeHeaderValue, headerParamsOf, paramHeaders } from "../protocol/http-headers.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { LoggingLevel, ProgressToken, RequestId } from "../protocol/schemas/common.js";
import type { Tool } from "../protocol/schemas/tools.js";
import { LATEST_PROTOCOL_VERSION, META } from "../protocol/versions.js";

/** How one request's `_meta` envelope is built; every field defaults to a correct 2026-07-28 value. */
export interface EnvelopeOptions {
  protocolVersion?: string;
  capabilities?: ClientCapabilities;
  logLevel?: LoggingLevel;
  progressToken?: ProgressToken;
}

export const CLIENT_INFO = { name: "roundtrip-wire-tests", version: "0.0.0" } as const;

/** The per-request `_meta` envelope of 2026-07-28. */
export function envelope(options: EnvelopeOptions = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [META.protocolVersion]: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    [META.clientCapabilities]: options.capabilities ?? {},
    [META.clientInfo]: CLIENT_INFO,
  };
  if (options.logLevel !== undefined) meta[META.logLevel] = options.logLevel;
  if (options.progressToken !== undefined) meta.progressToken = options.progressToken;
  return meta;
}

let lastId = 0;

/** A fresh request id, unique within the test worker. */
export function nextId(): number {
  lastId += 1;
  return lastId;
}

/** A JSON-RPC request carrying a correct envelope merged under `params._meta`. */
export function rpcRequest(
  method: string,
  params: Record<string, unknown> = {},
  options: EnvelopeOptions & { id?: RequestId } = {},
): JsonRpcRequest {
  const { id, ...meta } = options;
  return { jsonrpc: "2.0", id: id ?? nextId(), method, params: { _meta: envelope(meta), ...params } };
}

export function rpcNotification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/**
 * The Streamable HTTP headers a correct client sends for `request`: Content-Type, Accept, the
 * request metadata headers, and `Mcp-Param-*` for the arguments `tool` annotates.
 */
export function mcpHeaders(
  request: JsonRpcRequest | JsonRpcNotification,
  tool?: Tool,
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const params = request.params ?? {};
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.[META.protocolVersion];
  if (typeof version === "string") headers["mcp-protocol-version"] = version;
  if (!("id" in request)) return headers;
  headers["mcp-method"] = request.method;
  const name = carrierTarget(request.method, params);
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  if (tool && request.method === "tools/call") {
    const annotated = headerParamsOf(tool);
    if (typeof annotated === "string") throw new Error(`test tool ${tool.name} is invalid: ${annotated}`);
    const args = params.arguments as Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(paramHeaders(annotated, args))) {
      headers[key.toLowerCase()] = value;
    }
  }
  return headers;
}
