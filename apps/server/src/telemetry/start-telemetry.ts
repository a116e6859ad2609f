import type { MetricsConfig } from "../config/server-config.js";
import { startPrometheusEndpoint } from "./prometheus-endpoint.js";

/** What main.ts keeps of the OpenTelemetry SDK: the flush at exit. */
export interface RunningTelemetry {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, configured by the
 * standard `OTEL_*` variables (protocol, headers, intervals, `OTEL_SDK_DISABLED`...): the MCP SDK's
 * spans and metrics then go to that collector. With `metrics` (METRICS_PORT) the metrics are served
 * for Prometheus to scrape instead, with or without a collector for the spans: one path for each
 * metric, so that a backend fed by both never counts a request twice. The SDK is loaded only then,
 * so a server without either pays nothing for it. No auto-instrumentation: the MCP spans are the ones
 * that matter here.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  serviceName: string,
  metrics?: MetricsConfig,
): Promise<RunningTelemetry | undefined> {
  const otlp = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_SDK_DISABLED?.toLowerCase() !== "true";
  const scrape = metrics === undefined ? undefined : await startPrometheusEndpoint(metrics);
  if (!otlp) return scrape === undefined ? undefined : startScrapedMetrics(scrape, env, serviceName);
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    instrumentations: [],
    // OTEL_SERVICE_NAME, when set, names the service; otherwise the server's own name does.
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    ...(scrape === undefined ? {} : { metricReaders: [scrape] }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/**
 * Metrics alone, without the Node SDK, whose defaults would also export spans and logs to an OTLP
 * collector at localhost: a MeterProvider registered globally, which the MCP SDK's instruments reach.
 */
async function startScrapedMetrics(
  reader: Awaited<ReturnType<typeof startPrometheusEndpoint>>,
  env: NodeJS.ProcessEnv,
  serviceName: string,
): Promise<RunningTelemetry> {
  const [{ metrics }, { MeterProvider }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || serviceName }),
    readers: [reader],
  });
  metrics.setGlobalMeterProvider(provider);
  return { shutdown: () => provider.shutdown() };
}
