import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  type ExportResult,
  ExportResultCode,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** Often enough that metric collection runs several times inside a measured window. */
const METRIC_INTERVAL_MS = 1000;

/** The OpenTelemetry SDK as an application registers it, with exporters that count and drop. */
export interface DiscardingTelemetry {
  /** Spans and metric exports that reached the exporters: proof the SDK recorded something. */
  readonly exported: { spans: number; metricExports: number };
  /** Hands every pending span and metric to the exporters now. */
  flush(): Promise<void>;
}

let registered: DiscardingTelemetry | undefined;

/**
 * Registers the SDK globally (context manager, W3C propagators, a TracerProvider with a
 * BatchSpanProcessor, a MeterProvider with a periodic reader), once per process: what the bench
 * measures is the SDK's work, so the exporters drop what they get instead of sending it anywhere.
 */
export function discardingTelemetry(): DiscardingTelemetry {
  if (registered) return registered;
  const exported = { spans: 0, metricExports: 0 };
  const spanExporter: SpanExporter = {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      exported.spans += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
  };
  const metricExporter: PushMetricExporter = {
    export(_metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
      exported.metricExports++;
      done({ code: ExportResultCode.SUCCESS });
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: spanExporter })],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis: METRIC_INTERVAL_MS,
        exportTimeoutMillis: METRIC_INTERVAL_MS,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  registered = {
    exported,
    flush: async () => {
      await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
  };
  return registered;
}
