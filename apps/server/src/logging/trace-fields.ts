import { isSpanContextValid, trace } from "@opentelemetry/api";

/**
 * The active span's ids, under the names log pipelines join traces on: a line written while an MCP
 * request is served carries the trace and span of that request. Nothing when no span is active.
 */
export function traceFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (context === undefined || !isSpanContextValid(context)) return {};
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    trace_flags: context.traceFlags.toString(16).padStart(2, "0"),
  };
}
