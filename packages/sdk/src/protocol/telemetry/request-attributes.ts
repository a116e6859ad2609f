import type { Attributes, TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import { isRecord } from "../is-record.js";
import { ATTR, EXECUTE_TOOL, TOOL_ERROR } from "./names.js";

/**
 * What both sides record about one MCP request and its answer. Only names and kinds: never the
 * arguments, the answers, the result or the requestState, which may quote the user.
 */

/** The low-cardinality target of a span name: the tool or prompt, never a resource URI. */
function nameTarget(method: string, params: Readonly<Record<string, unknown>>): string | undefined {
  if (method !== "tools/call" && method !== "prompts/get") return undefined;
  return typeof params.name === "string" ? params.name : undefined;
}

/** `{mcp.method.name} {target}`, or the method alone when it names no tool or prompt. */
export function spanName(method: string, params: Readonly<Record<string, unknown>>): string {
  const target = nameTarget(method, params);
  return target === undefined ? method : `${method} ${target}`;
}

/** The method and what it names: tool, prompt or resource. */
export function requestAttributes(method: string, params: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = { [ATTR.mcpMethodName]: method };
  const target = nameTarget(method, params);
  if (method === "tools/call" && target !== undefined) {
    attributes[ATTR.toolName] = target;
    attributes[ATTR.operationName] = EXECUTE_TOOL;
  }
  if (method === "prompts/get" && target !== undefined) attributes[ATTR.promptName] = target;
  if (typeof params.uri === "string") attributes[ATTR.mcpResourceUri] = params.uri;
  return attributes;
}

/**
 * Which kinds of input a round asked for (elicitation, sampling, roots), from its inputRequests: the
 * kind is the first segment of each request's method, so a new kind needs no table here.
 */
export function inputKinds(result: Readonly<Record<string, unknown>>): string[] {
  const requests = result.inputRequests;
  if (!isRecord(requests)) return [];
  const kinds: string[] = [];
  for (const key in requests) {
    if (!Object.hasOwn(requests, key)) continue;
    const request = requests[key];
    if (!isRecord(request) || typeof request.method !== "string") continue;
    const slash = request.method.indexOf("/");
    const kind = slash === -1 ? request.method : request.method.slice(0, slash);
    if (kind !== "" && !kinds.includes(kind)) kinds.push(kind);
  }
  return kinds.length > 1 ? kinds.sort() : kinds;
}

/** A result's kind, the input it asks for, and `tool_error` for a tool result with `isError`. */
export function resultAttributes(result: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = {};
  if (typeof result.resultType === "string") attributes[ATTR.resultType] = result.resultType;
  const kinds = inputKinds(result);
  if (kinds.length > 0) attributes[ATTR.inputKinds] = kinds;
  if (result.isError === true) attributes[ATTR.errorType] = TOOL_ERROR;
  return attributes;
}

/** A JSON-RPC error answer: its code, as both attributes want it. */
export function errorCodeAttributes(code: number): Attributes {
  return { [ATTR.statusCode]: String(code), [ATTR.errorType]: String(code) };
}

/** The duration metrics keep the low-cardinality attributes only: no ids, no URIs, no flows. */
const METRIC_ATTRIBUTES: ReadonlySet<string> = new Set([
  ATTR.mcpMethodName,
  ATTR.mcpProtocolVersion,
  ATTR.toolName,
  ATTR.promptName,
  ATTR.operationName,
  ATTR.statusCode,
  ATTR.errorType,
  ATTR.networkTransport,
  ATTR.networkProtocolName,
  ATTR.networkProtocolVersion,
  ATTR.resultType,
]);

export function metricAttributes(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => METRIC_ATTRIBUTES.has(key)));
}

/** Trace context rides in `params._meta` (traceparent, tracestate, baggage), as the conventions say. */
export const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

export const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};
