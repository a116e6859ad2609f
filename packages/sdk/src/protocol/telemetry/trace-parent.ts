import type { Context } from "@opentelemetry/api";
import { metaGetter } from "./request-attributes.js";
import type { TelemetryScope } from "./telemetry-options.js";

/**
 * The trace context a request's `_meta` carries, extracted only when `_meta` has a field the
 * propagator reads: most requests carry none, and extracting nothing still costs a context each.
 */
export function parentOf(
  scope: TelemetryScope,
  meta: Readonly<Record<string, unknown>> | undefined,
): Context {
  const { otel } = scope;
  if (meta === undefined) return otel.ROOT_CONTEXT;
  for (const field of otel.propagation.fields()) {
    if (field in meta) return otel.propagation.extract(otel.ROOT_CONTEXT, meta, metaGetter);
  }
  return otel.ROOT_CONTEXT;
}
