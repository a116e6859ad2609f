import { PassThrough } from "node:stream";
import * as otel from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_CLIENT_PORT,
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_SERVER_OPERATION_DURATION,
} from "@opentelemetry/semantic-conventions/incubating";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client, type ClientOptions } from "../../client/client.js";
import { MemoryClientTransport } from "../../client/transport/memory-client.js";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { silentLogger } from "../../protocol/logger.js";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../protocol/telemetry/names.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { rpcRequest } from "../../test-support/messages.js";
import { acceptedContent, McpServer, toElicitationSchema } from "../index.js";
import { serveStdio } from "../transport/stdio-server.js";

/**
 * The OpenTelemetry SDK registered for real (tracer, meter, W3C propagators, async context), a real
 * McpServer over HTTP on port 0 and a real Client in both eras: what the exporters receive.
 */

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const reader = new CollectingReader();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otel.propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  otel.trace.setGlobalTracerProvider(tracerProvider);
  otel.metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  otel.trace.disable();
  otel.metrics.disable();
  otel.propagation.disable();
  otel.context.disable();
});

const SECRETS = {
  token: "bearer-secret-4f1c9e",
  argument: "argument-secret-77ab",
  answer: "answer-secret-c0ffee",
  state: "state-secret-5eed",
};

function makeServer(): McpServer {
  const mcp = new McpServer({ name: "ops", version: "1.0.0" }, { logger: silentLogger, exposeErrors: true });
  const Confirm = z.object({ note: z.string() });
  mcp.tool("deploy", { input: z.object({ env: z.string() }) }, ({ env }, ctx) => {
    if (ctx.requestState === undefined) {
      return inputRequired({
        inputRequests: { confirm: elicitForm(`Deploy to ${env}?`, toElicitationSchema(Confirm)) },
        requestState: `asked:${SECRETS.state}`,
      });
    }
    const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
    return `deployed with ${answer?.note ?? "nothing"}`;
  });
  mcp.tool("broken", { input: z.object({}) }, () => {
    throw new Error("disk full");
  });
  mcp.tool("again", { input: z.object({}), once: true }, (_args, ctx) => {
    if (ctx.requestState === undefined) {
      return inputRequired({
        inputRequests: { confirm: elicitForm("Sure?", toElicitationSchema(Confirm)) },
        requestState: "asked",
      });
    }
    return "done";
  });
  mcp.prompt("greet", {}, () => "Say hello");
  mcp.resource("notes", { uri: "notes://today" }, () => "x");
  return mcp;
}

let http: RunningHttpServer;
const clients: Client[] = [];
beforeEach(async () => {
  spans.reset();
  http = await startHttpServer(makeServer().server);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await http.close();
});

function client(options: ClientOptions = {}): Client {
  const made = new Client(http.url, {
    info: { name: "ops-client", version: "1" },
    logger: silentLogger,
    onElicit: () => ({ action: "accept", content: { note: SECRETS.answer } }),
    http: { headers: { authorization: `Bearer ${SECRETS.token}` } },
    ...options,
  });
  clients.push(made);
  return made;
}

const tracer = otel.trace.getTracer("telemetry-test");

/** Runs `work` inside a test span of its own, so the client spans have a known parent. */
async function inTestSpan<T>(work: () => Promise<T>): Promise<{ value: T; span: otel.SpanContext }> {
  return tracer.startActiveSpan("test", async (span) => {
    try {
      return { value: await work(), span: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

function finished(name: string, kind: otel.SpanKind): ReadableSpan[] {
  return spans.getFinishedSpans().filter((span) => span.name === name && span.kind === kind);
}

async function collected(): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

function points(metrics: ResourceMetrics, name: string): DataPoint<unknown>[] {
  return metrics.scopeMetrics.flatMap((scope) =>
    scope.metrics
      .filter((metric) => metric.descriptor.name === name)
      .flatMap((metric): DataPoint<unknown>[] => [...metric.dataPoints]),
  );
}

describe("spans and metrics per the MCP conventions, over HTTP", () => {
  it("names Roundtrip's attributes and metrics as the conventions package does", () => {
    expect([ATTR.mcpMethodName, ATTR.mcpProtocolVersion, ATTR.mcpSessionId, ATTR.mcpResourceUri]).toEqual([
      ATTR_MCP_METHOD_NAME,
      ATTR_MCP_PROTOCOL_VERSION,
      ATTR_MCP_SESSION_ID,
      ATTR_MCP_RESOURCE_URI,
    ]);
    expect([ATTR.toolName, ATTR.promptName, ATTR.operationName, ATTR.requestId, ATTR.statusCode]).toEqual([
      ATTR_GEN_AI_TOOL_NAME,
      ATTR_GEN_AI_PROMPT_NAME,
      ATTR_GEN_AI_OPERATION_NAME,
      ATTR_JSONRPC_REQUEST_ID,
      ATTR_RPC_RESPONSE_STATUS_CODE,
    ]);
    expect([ATTR.errorType, ATTR.networkTransport, ATTR.networkProtocolName]).toEqual([
      ATTR_ERROR_TYPE,
      ATTR_NETWORK_TRANSPORT,
      ATTR_NETWORK_PROTOCOL_NAME,
    ]);
    expect([ATTR.serverAddress, ATTR.serverPort]).toEqual([ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT]);
    expect([ATTR.networkProtocolVersion, ATTR.clientAddress, ATTR.clientPort]).toEqual([
      ATTR_NETWORK_PROTOCOL_VERSION,
      ATTR_CLIENT_ADDRESS,
      ATTR_CLIENT_PORT,
    ]);
    expect([METRIC.serverDuration, METRIC.clientDuration]).toEqual([
      METRIC_MCP_SERVER_OPERATION_DURATION,
      METRIC_MCP_CLIENT_OPERATION_DURATION,
    ]);
  });

  it("ties the two rounds of a tool call: client parent, _meta parent, flow, round and link", async () => {
    const mcp = client({ era: "modern" });
    const { value: result, span: testSpan } = await inTestSpan(() =>
      mcp.callTool("deploy", { env: SECRETS.argument }),
    );
    expect(result.content).toEqual([{ type: "text", text: `deployed with ${SECRETS.answer}` }]);

    const clientSpans = finished("tools/call deploy", otel.SpanKind.CLIENT);
    const serverSpans = finished("tools/call deploy", otel.SpanKind.SERVER);
    expect(clientSpans).toHaveLength(2);
    expect(serverSpans).toHaveLength(2);
    const [first, second] = serverSpans as [ReadableSpan, ReadableSpan];
    for (const [index, span] of clientSpans.entries()) {
      expect(span.parentSpanContext?.spanId).toBe(testSpan.spanId);
      expect(span.spanContext().traceId).toBe(testSpan.traceId);
      // The server span's parent is the client span, carried in params._meta.
      const server = serverSpans[index] as ReadableSpan;
      expect(server.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
      expect(server.parentSpanContext?.isRemote).toBe(true);
    }
    const port = Number(new URL(http.url).port);
    expect(clientSpans[0]?.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "deploy",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "server.address": "127.0.0.1",
      "server.port": port,
      "jsonrpc.request.id": expect.any(String),
      "mcp.protocol.version": "2026-07-28",
      "roundtrip.result_type": "input_required",
      "roundtrip.input.kinds": ["elicitation"],
      "roundtrip.round": 1,
    });
    expect(clientSpans[1]?.attributes).toMatchObject({
      "roundtrip.result_type": "complete",
      "roundtrip.round": 2,
    });
    expect(first.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "deploy",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "network.protocol.version": "1.1",
      "client.address": "127.0.0.1",
      "client.port": expect.any(Number),
      "jsonrpc.request.id": clientSpans[0]?.attributes["jsonrpc.request.id"],
      "mcp.protocol.version": "2026-07-28",
      "roundtrip.result_type": "input_required",
      "roundtrip.input.kinds": ["elicitation"],
      "roundtrip.flow.id": expect.stringMatching(/^[0-9a-f]{16}$/),
      "roundtrip.round": 1,
    });
    expect(second.attributes).toMatchObject({
      "roundtrip.result_type": "complete",
      "roundtrip.flow.id": first.attributes["roundtrip.flow.id"],
      "roundtrip.round": 2,
    });
    expect(second.attributes["roundtrip.input.kinds"]).toBeUndefined();
    expect(first.links).toEqual([]);
    expect(second.links.map((link) => link.context.spanId)).toEqual([first.spanContext().spanId]);
    expect(second.links[0]?.context.traceId).toBe(first.spanContext().traceId);

    const metrics = await collected();
    const rounds = points(metrics, "roundtrip.flow.rounds").filter(
      (point) => point.attributes["gen_ai.tool.name"] === "deploy",
    );
    expect(rounds.map((point) => (point.value as Histogram).sum)).toEqual([2]);
    const serverDurations = points(metrics, "mcp.server.operation.duration").filter(
      (point) => point.attributes["gen_ai.tool.name"] === "deploy",
    );
    expect(serverDurations.map((point) => point.attributes["roundtrip.result_type"]).sort()).toEqual([
      "complete",
      "input_required",
    ]);
    const histogram = serverDurations[0]?.value as Histogram;
    expect(histogram.buckets.boundaries).toEqual(DURATION_BUCKETS);
    expect(serverDurations[0]?.attributes).not.toHaveProperty("jsonrpc.request.id");
    const clientDurations = points(metrics, "mcp.client.operation.duration").filter(
      (point) => point.attributes["gen_ai.tool.name"] === "deploy",
    );
    expect(clientDurations.reduce((sum, point) => sum + (point.value as Histogram).count, 0)).toBe(2);
  });

  it("records a tool's isError as tool_error, a JSON-RPC error by its code, prompts and resources by name", async () => {
    const mcp = client({ era: "modern" });
    const broken = await mcp.callTool("broken", {});
    expect(broken.isError).toBe(true);
    await mcp.getPrompt("greet", {});
    await mcp.readResource("notes://today");
    await expect(mcp.callTool("missing", {})).rejects.toThrow();

    const [tool] = finished("tools/call broken", otel.SpanKind.SERVER);
    expect(tool?.attributes["error.type"]).toBe("tool_error");
    expect(tool?.status.code).toBe(otel.SpanStatusCode.ERROR);
    const [prompt] = finished("prompts/get greet", otel.SpanKind.SERVER);
    expect(prompt?.attributes["gen_ai.prompt.name"]).toBe("greet");
    const [resource] = finished("resources/read", otel.SpanKind.SERVER);
    expect(resource?.attributes["mcp.resource.uri"]).toBe("notes://today");
    const [missing] = finished("tools/call missing", otel.SpanKind.SERVER);
    expect(missing?.attributes["rpc.response.status_code"]).toMatch(/^-32\d{3}$/);
    expect(missing?.attributes["error.type"]).toBe(missing?.attributes["rpc.response.status_code"]);
    const [missingClient] = finished("tools/call missing", otel.SpanKind.CLIENT);
    expect(missingClient?.attributes["error.type"]).toBe(missing?.attributes["error.type"]);
    expect(missingClient?.status.code).toBe(otel.SpanStatusCode.ERROR);
  });

  it("counts a refused requestState by its reason, which the client never sees", async () => {
    const mcp = client({ era: "modern" });
    const before = points(await collected(), "roundtrip.request_state.refusals");
    const error = await mcp
      .callTool("deploy", { env: "staging" }, { requestState: "v1.forged", inputResponses: {} })
      .catch((caught: unknown) => caught);
    expect(String(error)).toContain("Invalid or expired requestState");
    expect(String(error)).not.toMatch(/malformed|codec/);
    const after = points(await collected(), "roundtrip.request_state.refusals");
    const total = (list: DataPoint<unknown>[]) =>
      list.reduce((sum, point) => sum + (point.value as number), 0);
    expect(total(after) - total(before)).toBe(1);
    const reasons = after.map((point) => point.attributes["roundtrip.request_state.refusal_reason"]);
    expect(reasons.every((reason) => typeof reason === "string" && reason.length > 0)).toBe(true);
    const [server] = finished("tools/call deploy", otel.SpanKind.SERVER);
    expect(server?.attributes["rpc.response.status_code"]).toBe("-32602");
  });

  it("counts once-ledger outcomes: a round that ran, its repeat replayed", async () => {
    const mcp = client({ era: "modern" });
    const outcome = await mcp.runRounds(
      { method: "tools/call", params: { name: "again", arguments: {} } },
      { onRound: () => ({ kind: "stop" }) },
    );
    if (outcome.kind !== "stopped") throw new Error("the once tool did not ask");
    const state = outcome.saved.result.requestState;
    const inputResponses = { confirm: { action: "accept", content: { note: "n" } } } as const;
    await mcp.callTool("again", {}, { requestState: state, inputResponses });
    await mcp.callTool("again", {}, { requestState: state, inputResponses });
    const once = points(await collected(), "roundtrip.once.outcomes").filter(
      (point) => point.attributes["gen_ai.tool.name"] === "again",
    );
    const byOutcome = Object.fromEntries(
      once.map((point) => [point.attributes["roundtrip.once.outcome"], point.value]),
    );
    expect(byOutcome).toEqual({ ran: 1, replayed: 1 });
    // Resumed from a bare requestState, the client cannot tell which round these were.
    const resumed = finished("tools/call again", otel.SpanKind.CLIENT).slice(1);
    expect(resumed.map((span) => span.attributes["roundtrip.round"])).toEqual([undefined, undefined]);
  });

  it("serves the 2025 era with its session id, and ties the bridged rounds the same way", async () => {
    const mcp = client({ era: "legacy" });
    const { span: testSpan } = await inTestSpan(() => mcp.callTool("deploy", { env: "prod" }));
    const clientSpans = finished("tools/call deploy", otel.SpanKind.CLIENT);
    expect(clientSpans).toHaveLength(1);
    expect(clientSpans[0]?.parentSpanContext?.spanId).toBe(testSpan.spanId);
    expect(clientSpans[0]?.attributes["mcp.protocol.version"]).toBe("2025-11-25");
    expect(clientSpans[0]?.attributes["roundtrip.round"]).toBe(1);
    const serverSpans = finished("tools/call deploy", otel.SpanKind.SERVER);
    expect(serverSpans).toHaveLength(2);
    const [first, second] = serverSpans as [ReadableSpan, ReadableSpan];
    for (const span of serverSpans) {
      expect(span.attributes["mcp.protocol.version"]).toBe("2025-11-25");
      expect(span.attributes["mcp.session.id"]).toEqual(expect.any(String));
      expect(span.spanContext().traceId).toBe(testSpan.traceId);
    }
    expect(first.parentSpanContext?.spanId).toBe(clientSpans[0]?.spanContext().spanId);
    expect([first.attributes["roundtrip.round"], second.attributes["roundtrip.round"]]).toEqual([1, 2]);
    expect(second.links.map((link) => link.context.spanId)).toEqual([first.spanContext().spanId]);
  });

  it("spans a 2025 session's initialize and own requests, and its pushed questions with the roles swapped", async () => {
    const mcp = client({ era: "legacy" });
    const { span: testSpan } = await inTestSpan(() => mcp.callTool("deploy", { env: "prod" }));
    const sessionId = finished("tools/call deploy", otel.SpanKind.SERVER)[0]?.attributes["mcp.session.id"];
    expect(sessionId).toEqual(expect.any(String));

    const [initialize] = finished("initialize", otel.SpanKind.SERVER);
    expect(initialize?.attributes).toMatchObject({
      "mcp.method.name": "initialize",
      "mcp.protocol.version": "2025-11-25",
      "mcp.session.id": sessionId,
      "network.transport": "tcp",
      "client.address": "127.0.0.1",
    });
    const [clientInitialize] = finished("initialize", otel.SpanKind.CLIENT);
    expect(initialize?.parentSpanContext?.spanId).toBe(clientInitialize?.spanContext().spanId);

    // The server's question is its CLIENT span, under the client's call; the client's answer is a
    // SERVER span under that, carried in the question's _meta.
    const clientCall = finished("tools/call deploy", otel.SpanKind.CLIENT)[0];
    const asked = finished("elicitation/create", otel.SpanKind.CLIENT);
    const answered = finished("elicitation/create", otel.SpanKind.SERVER);
    expect(asked).toHaveLength(1);
    expect(answered).toHaveLength(1);
    expect(asked[0]?.parentSpanContext?.spanId).toBe(clientCall?.spanContext().spanId);
    expect(asked[0]?.spanContext().traceId).toBe(testSpan.traceId);
    expect(answered[0]?.parentSpanContext?.spanId).toBe(asked[0]?.spanContext().spanId);
    expect(answered[0]?.parentSpanContext?.isRemote).toBe(true);
    for (const span of [asked[0], answered[0]]) {
      expect(span?.attributes).toMatchObject({
        "mcp.method.name": "elicitation/create",
        "mcp.protocol.version": "2025-11-25",
        "mcp.session.id": sessionId,
        "jsonrpc.request.id": asked[0]?.attributes["jsonrpc.request.id"],
      });
    }

    // A 2025 ping has no place in the 2026 schema the wire functions check: sent raw.
    const pong = await fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": String(sessionId),
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
    });
    expect(await pong.text()).toContain(`"result"`);
    const [ping] = finished("ping", otel.SpanKind.SERVER);
    expect(ping?.attributes).toMatchObject({ "mcp.method.name": "ping", "mcp.session.id": sessionId });
  });

  it("puts no session id on a 2026-07-28 span, which has no sessions", async () => {
    const mcp = client({ era: "modern" });
    await mcp.callTool("deploy", { env: "prod" });
    const all = spans.getFinishedSpans().filter((span) => span.name !== "test");
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((span) => span.attributes["mcp.session.id"] !== undefined)).toEqual([]);
  });

  it("exports no token, requestState, argument or answer in any span or metric", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const mcp = client({ era });
      let sealed = "";
      await mcp.runRounds(
        { method: "tools/call", params: { name: "deploy", arguments: { env: SECRETS.argument } } },
        {
          onRound: (round) => {
            sealed = round.result.requestState ?? "";
            return {
              kind: "answer",
              inputResponses: { confirm: { action: "accept", content: { note: SECRETS.answer } } },
            };
          },
        },
      );
      if (era === "modern") expect(sealed.length).toBeGreaterThan(20);
      await mcp
        .callTool("deploy", { env: SECRETS.argument }, { requestState: `${sealed}x`, inputResponses: {} })
        .catch(() => {});
      const exported = JSON.stringify({
        spans: spans.getFinishedSpans().map((span) => ({
          name: span.name,
          attributes: span.attributes,
          events: span.events,
          links: span.links,
          status: span.status,
        })),
        metrics: (await collected()).scopeMetrics.flatMap((scope) =>
          scope.metrics.map((metric) => metric.dataPoints.map((point) => point.attributes)),
        ),
      });
      expect(exported).toContain("roundtrip.flow.id");
      const secrets = [...Object.values(SECRETS), ...(sealed ? [sealed, sealed.slice(0, 24)] : [])];
      for (const secret of secrets) expect(exported, `${era}: ${secret}`).not.toContain(secret);
    }
  });
});

describe("over stdio", () => {
  it("takes the parent from a traceparent in the raw message's _meta, on a pipe", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveStdio(makeServer().server, { input, output });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const request = rpcRequest("tools/call", { name: "broken", arguments: {} });
    const meta = request.params?._meta as Record<string, unknown>;
    meta.traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    input.end(`${JSON.stringify(request)}\n`);
    await served;
    const [span] = finished("tools/call broken", otel.SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(span?.attributes["network.transport"]).toBe("pipe");
    expect(span?.attributes["network.protocol.name"]).toBeUndefined();
    expect(String(output.read())).toContain('"isError":true');
  });
});

describe("in one process", () => {
  it("parents the server span on the client's without linking it again; links a foreign ambient span", async () => {
    const server = makeServer().server;
    const mcp = new Client(new MemoryClientTransport(server), { logger: silentLogger, era: "modern" });
    clients.push(mcp);
    await inTestSpan(() => mcp.listTools());
    const [clientSpan] = finished("tools/list", otel.SpanKind.CLIENT);
    const [serverSpan] = finished("tools/list", otel.SpanKind.SERVER);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    expect(serverSpan?.links).toEqual([]);

    spans.reset();
    // A transport's own span (an HTTP server span) active around dispatch: kept as a link, not a parent.
    const transportSpan = await tracer.startActiveSpan("POST /mcp", async (span) => {
      await server.handleRequest(rpcRequest("tools/list"));
      span.end();
      return span.spanContext();
    });
    const [dispatched] = finished("tools/list", otel.SpanKind.SERVER);
    expect(dispatched?.parentSpanContext).toBeUndefined();
    expect(dispatched?.links.map((link) => link.context.spanId)).toEqual([transportSpan.spanId]);
  });
});
