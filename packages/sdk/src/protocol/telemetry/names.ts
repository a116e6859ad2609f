/**
 * The attribute, metric and scope names Roundtrip's spans and metrics use: the OpenTelemetry semantic
 * conventions for MCP where they name something, `roundtrip.*` for what only multi round-trip requests
 * have. Both sides read them from here, so a name is spelled once.
 */
export const ATTR = {
  mcpMethodName: "mcp.method.name",
  mcpProtocolVersion: "mcp.protocol.version",
  mcpSessionId: "mcp.session.id",
  mcpResourceUri: "mcp.resource.uri",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  requestId: "jsonrpc.request.id",
  statusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  networkProtocolVersion: "network.protocol.version",
  serverAddress: "server.address",
  serverPort: "server.port",
  clientAddress: "client.address",
  clientPort: "client.port",
  flowId: "roundtrip.flow.id",
  round: "roundtrip.round",
  resultType: "roundtrip.result_type",
  inputKinds: "roundtrip.input.kinds",
  refusalReason: "roundtrip.request_state.refusal_reason",
  onceOutcome: "roundtrip.once.outcome",
  taskStatus: "roundtrip.task.status",
} as const;

export const METRIC = {
  serverDuration: "mcp.server.operation.duration",
  clientDuration: "mcp.client.operation.duration",
  rounds: "roundtrip.flow.rounds",
  refusals: "roundtrip.request_state.refusals",
  onceOutcomes: "roundtrip.once.outcomes",
} as const;

/** The conventions' advised boundaries for both operation-duration histograms, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** Rounds per call: most flows end within a few; a long one is worth seeing as such. */
export const ROUND_BUCKETS: readonly number[] = [1, 2, 3, 4, 5, 8, 13, 21];

/** The `gen_ai.operation.name` of a tools/call, so tool spans read like other tool executions. */
export const EXECUTE_TOOL = "execute_tool";

/** `error.type` of a tools/call answered with `isError: true`. */
export const TOOL_ERROR = "tool_error";

/** The instrumentation scope of every tracer and meter Roundtrip asks for. */
export const SCOPE_NAME = "@roundtrip/sdk";
