import type { Attributes, Histogram, Meter } from "@opentelemetry/api";
import { McpError } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/is-record.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../protocol/telemetry/names.js";
import {
  errorCodeAttributes,
  metaSetter,
  metricAttributes,
  requestAttributes,
  resultAttributes,
  spanName,
} from "../../protocol/telemetry/request-attributes.js";
import {
  instrumentsOf,
  type TelemetryOption,
  TelemetrySource,
} from "../../protocol/telemetry/telemetry-options.js";
import { parentOf } from "../../protocol/telemetry/trace-parent.js";
import { roundOf } from "./round-marks.js";

/** One outgoing request, as telemetry sees it before it is sent. */
export interface OutgoingRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** The caller's extra `_meta`, which the trace context joins. */
  readonly meta: Record<string, unknown> | undefined;
  /** `sessionId`: a 2025-era HTTP session's, once the server has given one. */
  readonly transport: { readonly kind: string; readonly url?: unknown; readonly sessionId?: unknown };
  /** The version the request goes out in, read when it has been settled. */
  protocolVersion(): string;
}

/** The session a server's request came over, as the answering span names it. */
export interface AnsweringSession {
  readonly transport: OutgoingRequest["transport"];
  protocolVersion(): string;
}

/** Sends the request with this `_meta` and reports each attempt's JSON-RPC id. */
export type TracedSend = (
  meta: Record<string, unknown> | undefined,
  sent: (id: RequestId) => void,
) => Promise<Record<string, unknown>>;

/** A request whose span has started: what it sends with, and what ends the span. */
interface TracedRequest {
  readonly meta: Record<string, unknown> | undefined;
  /** Runs the sending with the span active, so the transport's own spans (HTTP) nest under it. */
  run<T>(work: () => Promise<T>): Promise<T>;
  sent(id: RequestId): void;
  finish(outcome: Attributes): void;
}

function durationHistogram(meter: Meter): Histogram {
  return meter.createHistogram(METRIC.clientDuration, {
    description: "Time from sending one MCP request to its answer, recoveries included",
    unit: "s",
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
}

function transportAttributes(transport: OutgoingRequest["transport"]): Attributes {
  if (transport.kind === "stdio") return { [ATTR.networkTransport]: "pipe" };
  if (transport.kind !== "http" || !(transport.url instanceof URL)) return {};
  const { hostname, port, protocol } = transport.url;
  return {
    [ATTR.networkTransport]: "tcp",
    [ATTR.networkProtocolName]: "http",
    [ATTR.serverAddress]: hostname,
    [ATTR.serverPort]: port === "" ? (protocol === "https:" ? 443 : 80) : Number(port),
  };
}

/** The low-cardinality class of a failure that is no JSON-RPC error: a timeout, a dropped connection. */
function failureAttributes(error: unknown): Attributes {
  if (error instanceof McpError) return errorCodeAttributes(error.code);
  return { [ATTR.errorType]: error instanceof Error ? error.name : "_OTHER" };
}

/**
 * The client side of the MCP conventions: one CLIENT span per request (its recoveries included), its
 * context injected into `params._meta` with the application's propagator, and the duration histogram.
 */
export class ClientTelemetry {
  readonly #source: TelemetrySource;

  constructor(option: TelemetryOption | undefined) {
    this.#source = new TelemetrySource(option);
  }

  /** Sends the request inside its span; a failing provider costs the span, never the request. */
  async observe(request: OutgoingRequest, send: TracedSend): Promise<Record<string, unknown>> {
    let traced: TracedRequest | undefined;
    try {
      traced = await this.#start(request);
    } catch {
      traced = undefined;
    }
    if (traced === undefined) return send(request.meta, () => {});
    let outcome: Attributes = {};
    try {
      const result = await traced.run(() => send(traced.meta, traced.sent));
      outcome = isRecord(result) ? resultAttributes(result) : {};
      return result;
    } catch (error) {
      outcome = failureAttributes(error);
      throw error;
    } finally {
      try {
        traced.finish(outcome);
      } catch {
        // The result stands: telemetry that cannot be recorded is dropped.
      }
    }
  }

  /**
   * A request a 2025-era server sent over its session (elicitation/create, sampling/createMessage,
   * roots/list, ping), the roles swapped: this client's SERVER span, its parent the server's span
   * in `params._meta`. Names and kinds only: never the question or the answer.
   */
  async answer(
    request: JsonRpcRequest,
    session: AnsweringSession,
    handle: () => Promise<JsonRpcResponse>,
  ): Promise<JsonRpcResponse> {
    const scope = await this.#source.scope().catch(() => undefined);
    if (!scope?.tracing) return handle();
    const { otel, tracer } = scope;
    const meta = request.params?._meta;
    const parent = parentOf(scope, isRecord(meta) ? meta : undefined);
    const attributes: Attributes = {
      [ATTR.mcpMethodName]: request.method,
      [ATTR.requestId]: String(request.id),
      [ATTR.mcpProtocolVersion]: session.protocolVersion(),
      ...transportAttributes(session.transport),
    };
    const id = session.transport.sessionId;
    if (typeof id === "string") attributes[ATTR.mcpSessionId] = id;
    const span = tracer.startSpan(request.method, { kind: otel.SpanKind.SERVER, attributes }, parent);
    try {
      const response = await otel.context.with(otel.trace.setSpan(parent, span), handle);
      if ("error" in response) {
        span.setAttributes(errorCodeAttributes(response.error.code));
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: response.error.message });
      }
      return response;
    } finally {
      span.end();
    }
  }

  async #start(request: OutgoingRequest): Promise<TracedRequest | undefined> {
    const scope = await this.#source.scope();
    if (scope === undefined) return undefined;
    const { otel, tracer } = scope;
    const { method, params } = request;
    const attributes: Attributes = {
      ...requestAttributes(method, params),
      ...transportAttributes(request.transport),
    };
    const round = roundOf(params);
    if (round !== undefined) attributes[ATTR.round] = round;
    const span = tracer.startSpan(spanName(method, params), { kind: otel.SpanKind.CLIENT, attributes });
    const active = otel.trace.setSpan(otel.context.active(), span);
    const carrier: Record<string, unknown> = { ...request.meta };
    otel.propagation.inject(active, carrier, metaSetter);
    const started = performance.now();
    return {
      // Nothing to carry (no propagator registered) keeps the request exactly as it was.
      meta: request.meta === undefined && Object.keys(carrier).length === 0 ? undefined : carrier,
      run: (work) => otel.context.with(active, work),
      sent: (id) => span.setAttribute(ATTR.requestId, String(id)),
      finish: (outcome) => {
        try {
          outcome[ATTR.mcpProtocolVersion] = request.protocolVersion();
          span.setAttributes(outcome);
          const session = request.transport.sessionId;
          if (typeof session === "string") span.setAttribute(ATTR.mcpSessionId, session);
          if (outcome[ATTR.errorType] !== undefined) span.setStatus({ code: otel.SpanStatusCode.ERROR });
          const histogram = instrumentsOf(scope.meter, "client", durationHistogram);
          const seconds = (performance.now() - started) / 1000;
          histogram.record(seconds, metricAttributes({ ...attributes, ...outcome }));
        } finally {
          span.end();
        }
      },
    };
  }
}
