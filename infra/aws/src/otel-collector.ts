import { RemovalPolicy, type Stack } from "aws-cdk-lib";
import * as ecs from "aws-cdk-lib/aws-ecs";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";

/** OTLP over HTTP, on the task's loopback: the server container shares the task's network namespace. */
export const OTLP_HTTP_PORT = 4318;

/** The CloudWatch namespace the server's metrics land in. */
export const METRICS_NAMESPACE = "Roundtrip";

/**
 * The collector's configuration: OTLP from the server on loopback only, spans to X-Ray, metrics to
 * CloudWatch as embedded-metric-format log events in a group this stack owns (so the task role may
 * write there and nowhere else).
 */
function collectorConfig(region: string, metricsGroup: string): string {
  return [
    "receivers:",
    "  otlp:",
    "    protocols:",
    "      http:",
    `        endpoint: 127.0.0.1:${OTLP_HTTP_PORT}`,
    "processors:",
    "  batch: {}",
    "exporters:",
    "  awsxray:",
    `    region: ${region}`,
    "  awsemf:",
    `    region: ${region}`,
    `    namespace: ${METRICS_NAMESPACE}`,
    `    log_group_name: ${metricsGroup}`,
    "    log_stream_name: '{TaskId}'",
    "    resource_to_telemetry_conversion:",
    "      enabled: true",
    "service:",
    "  pipelines:",
    "    traces: { receivers: [otlp], processors: [batch], exporters: [awsxray] }",
    "    metrics: { receivers: [otlp], processors: [batch], exporters: [awsemf] }",
  ].join("\n");
}

/**
 * An AWS Distro for OpenTelemetry collector beside the server in each task, and what the server needs
 * to reach it: the OTEL_* variables its telemetry start-up reads. The Prometheus endpoint stays off
 * (no METRICS_PORT): metrics leave by OTLP, and no scrape port is opened on the task.
 */
export function addOtelCollector(
  scope: Stack,
  options: {
    taskDefinition: ecs.FargateTaskDefinition;
    server: ecs.ContainerDefinition;
    taskRole: iam.IRole;
    image: string;
    logGroup: logs.ILogGroup;
  },
): { metricsGroup: logs.LogGroup } {
  const metricsGroup = new logs.LogGroup(scope, "MetricsLogs", {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const collector = options.taskDefinition.addContainer("otel-collector", {
    image: ecs.ContainerImage.fromRegistry(options.image),
    essential: false,
    readonlyRootFilesystem: true,
    memoryReservationMiB: 128,
    environment: { AOT_CONFIG_CONTENT: collectorConfig(scope.region, metricsGroup.logGroupName) },
    logging: ecs.LogDrivers.awsLogs({ logGroup: options.logGroup, streamPrefix: "otel-collector" }),
  });
  // Telemetry is best effort: a collector that is down costs spans, never the server's start or its answers.
  options.server.addContainerDependencies({
    container: collector,
    condition: ecs.ContainerDependencyCondition.START,
  });
  options.server.addEnvironment("OTEL_EXPORTER_OTLP_ENDPOINT", `http://127.0.0.1:${OTLP_HTTP_PORT}`);
  options.server.addEnvironment("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");

  // X-Ray has no resource-level permissions for these; the metrics go to the one group made here.
  options.taskRole.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
        "xray:GetSamplingRules",
        "xray:GetSamplingTargets",
      ],
      resources: ["*"],
    }),
  );
  options.taskRole.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
      resources: [metricsGroup.logGroupArn],
    }),
  );
  return { metricsGroup };
}
