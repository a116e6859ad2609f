// The demo's own collector, in its process: the instances record their spans through the global
// OpenTelemetry API into memory, and the demo draws them at the end. Nothing leaves the process.
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { type CollectedSpan, INSTANCE_ATTRIBUTE } from "./waterfall.js";

export interface TraceCollector {
  /** Every span finished so far. */
  spans(): CollectedSpan[];
  close(): Promise<void>;
}

const millis = ([seconds, nanos]: readonly [number, number]) => seconds * 1000 + nanos / 1e6;

/** Registers the collector as the process's tracer provider, with a context manager so spans nest. */
export function collectTraces(): TraceCollector {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () =>
      exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        spanId: span.spanContext().spanId,
        startMs: millis(span.startTime),
        endMs: millis(span.endTime),
        attributes: span.attributes,
      })),
    close: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** Names the instance serving the current request on its span (the round's SERVER span). */
export function tagInstance(name: string): void {
  trace.getActiveSpan()?.setAttribute(INSTANCE_ATTRIBUTE, name);
}
