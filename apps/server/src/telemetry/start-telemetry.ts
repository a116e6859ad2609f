/** What main.ts keeps of the OpenTelemetry SDK: the flush at exit. */
export interface RunningTelemetry {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, configured by the
 * standard `OTEL_*` variables (protocol, headers, intervals, `OTEL_SDK_DISABLED`...): the MCP SDK's
 * spans and metrics then go to that collector. The SDK is loaded only then, so a server without a
 * collector pays nothing for it. No auto-instrumentation: the MCP spans are the ones that matter here.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  serviceName: string,
): Promise<RunningTelemetry | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return undefined;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    instrumentations: [],
    // OTEL_SERVICE_NAME, when set, names the service; otherwise the server's own name does.
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
