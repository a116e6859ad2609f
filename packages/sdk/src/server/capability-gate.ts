import { McpError } from "../protocol/errors.js";
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
