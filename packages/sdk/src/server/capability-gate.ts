import { McpError } from "../protocol/errors.js";
import { isRecord } from "../protocol/is-record.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { InputRequest } from "../protocol/schemas/input-required.js";

/**
 * The client capability one embedded input request needs, or undefined when this request's
 * capabilities already cover it. Capabilities are per request in 2026-07-28: nothing is remembered.
 */
export function missingCapabilityFor(
  request: InputRequest,
  capabilities: ClientCapabilities,
): ClientCapabilities | undefined {
  switch (request.method) {
    case "elicitation/create": {
      const elicitation = capabilities.elicitation;
      if (request.params.mode === "url") {
        return elicitation?.url ? undefined : { elicitation: { url: {} } };
      }
      // A bare `elicitation: {}` predates modes and means form support.
      if (!elicitation) return { elicitation: { form: {} } };
      const declaresModes = elicitation.form !== undefined || elicitation.url !== undefined;
      return !declaresModes || elicitation.form ? undefined : { elicitation: { form: {} } };
    }
    case "sampling/createMessage": {
      if (!capabilities.sampling) {
        return request.params.tools || request.params.toolChoice
          ? { sampling: { tools: {} } }
          : { sampling: {} };
      }
      const needsTools = request.params.tools !== undefined || request.params.toolChoice !== undefined;
      return needsTools && !capabilities.sampling.tools ? { sampling: { tools: {} } } : undefined;
    }
    case "roots/list":
      return capabilities.roots ? undefined : { roots: {} };
  }
}

function merge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing && typeof existing === "object" && value && typeof value === "object") {
      merge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}

/** Throws -32021 naming every capability the batch needs that this request did not declare. */
export function assertCapabilitiesFor(
  requests: Iterable<InputRequest>,
  capabilities: ClientCapabilities,
): void {
  const required: Record<string, unknown> = {};
  for (const request of requests) {
    const missing = missingCapabilityFor(request, capabilities);
    if (missing) merge(required, missing);
  }
  if (Object.keys(required).length > 0) throw McpError.missingCapability(required as ClientCapabilities);
}

/**
 * A sampling request's `includeContext` is advisory (the client MAY ignore it) and its values other than
 * "none" are deprecated: they SHOULD reach only a client that declared `sampling.context`. For any
 * other client the field is dropped rather than the question refused, so the request still goes out,
 * without asking for context the client never said it can attach. Returns `inputRequests` itself when
 * nothing needs dropping.
 */
export function withDeclaredContext<T>(inputRequests: T, capabilities: ClientCapabilities): T {
  if (capabilities.sampling?.context !== undefined || !isRecord(inputRequests)) return inputRequests;
  let stripped: Record<string, unknown> | undefined;
  for (const [key, request] of Object.entries(inputRequests)) {
    if (!isRecord(request) || request.method !== "sampling/createMessage" || !isRecord(request.params)) {
      continue;
    }
    const { includeContext, ...params } = request.params;
    if (includeContext === undefined || includeContext === "none") continue;
    stripped ??= { ...inputRequests };
    stripped[key] = { ...request, params };
  }
  return (stripped as T | undefined) ?? inputRequests;
}
