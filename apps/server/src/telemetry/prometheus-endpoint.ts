import type { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import type { MetricsConfig } from "../config/server-config.js";

/**
 * The OpenTelemetry Prometheus exporter serving `/metrics` on its own listener. It is awaited here,
 * rather than left to start in the background as the exporter would, so that a port already taken
 * stops the server at start with the cause instead of leaving it silently unscraped.
 */
export async function startPrometheusEndpoint(config: MetricsConfig): Promise<PrometheusExporter> {
  const { PrometheusExporter } = await import("@opentelemetry/exporter-prometheus");
  const exporter = new PrometheusExporter({
    host: config.host,
    port: config.port,
    endpoint: "/metrics",
    preventServerStart: true,
  });
  try {
    await exporter.startServer();
  } catch (error) {
    throw new Error(
      `cannot serve /metrics on ${config.host}:${config.port} (METRICS_HOST, METRICS_PORT): ${(error as Error).message}; choose a free port`,
      { cause: error },
    );
  }
  return exporter;
}
