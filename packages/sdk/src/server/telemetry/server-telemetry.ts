import type { Attributes, Context, Histogram, Link, Meter, Span } from "@opentelemetry/api";
import { isRecord } from "../../protocol/is-record.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../protocol/telemetry/names.js";
import {
  errorCodeAttributes,
  metaGetter,
  resultAttributes,
} from "../../protocol/telemetry/request-attributes.js";
import { type RequestShape, RequestShapes } from "../../protocol/telemetry/request-shape.js";
import {
  instrumentsOf,
  type TelemetryOption,
  type TelemetryScope,
  TelemetrySource,
} from "../../protocol/telemetry/telemetry-options.js";
import { META } from "../../protocol/versions.js";
import type { TransportInfo } from "../context.js";
import { RoundRecord, withRoundRecord } from "./round-record.js";

/** What dispatch knows of a request besides its message: the era and the transport. */
export interface ServedVia {
  readonly legacy?: { readonly protocolVersion: string };
  readonly transport?: TransportInfo;
}

/** Dispatch's answer, as much of it as telemetry reads. */
interface Answer {
  readonly message: { readonly result?: unknown; readonly error?: { code: number; message: string } };
}

function durationHistogram(meter: Meter): Histogram {
  return meter.createHistogram(METRIC.serverDuration, {
    description: "Time the server took to answer one MCP request",
    unit: "s",
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
}

/** The transport's low-cardinality facts, shared by every request over it: not the peer. */
function transportAttributes(transport: TransportInfo | undefined): Attributes {
  if (transport?.kind === "http") {
    const version = transport.httpVersion;
    return {
      [ATTR.networkTransport]: "tcp",
      [ATTR.networkProtocolName]: "http",
      ...(version === undefined ? {} : { [ATTR.networkProtocolVersion]: version }),
    };
  }
  if (transport?.kind === "stdio") return { [ATTR.networkTransport]: "pipe" };
  return {};
}

function protocolVersion(
  meta: Readonly<Record<string, unknown>> | undefined,
  via: ServedVia,
): string | undefined {
  if (via.legacy) return via.legacy.protocolVersion;
  const version = meta?.[META.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

/** A 2025-era session's id, which only its HTTP requests carry. */
function sessionId(via: ServedVia): string | undefined {
  if (!via.legacy) return undefined;
  const header = via.transport?.headers?.["mcp-session-id"];
  return typeof header === "string" ? header : undefined;
}

/** What only this request has: its id, the resource it names, its session and its peer. */
function ownAttributes(
  request: JsonRpcRequest,
  params: Readonly<Record<string, unknown>>,
  via: ServedVia,
): Attributes {
  const attributes: Attributes = { [ATTR.requestId]: String(request.id) };
  if (typeof params.uri === "string") attributes[ATTR.mcpResourceUri] = params.uri;
  const session = sessionId(via);
  if (session !== undefined) attributes[ATTR.mcpSessionId] = session;
  const peer = via.transport?.peer;
  if (peer !== undefined) {
    attributes[ATTR.clientAddress] = peer.address;
    if (peer.port !== undefined) attributes[ATTR.clientPort] = peer.port;
  }
  return attributes;
}

/**
 * The trace context in `_meta`, extracted only when `_meta` has a field the propagator reads: most
 * requests carry none, and extraction with nothing to find still costs a context per request.
 */
function parentOf(scope: TelemetryScope, meta: Readonly<Record<string, unknown>> | undefined): Context {
  const { otel } = scope;
  if (meta === undefined) return otel.ROOT_CONTEXT;
  for (const field of otel.propagation.fields()) {
    if (field in meta) return otel.propagation.extract(otel.ROOT_CONTEXT, meta, metaGetter);
  }
  return otel.ROOT_CONTEXT;
}

const NO_OUTCOME: Attributes = Object.freeze({});

/** One request being served: its span (when tracing), its round and its clock. */
class ServedRequest {
  readonly #scope: TelemetryScope;
  readonly #shape: RequestShape;
  readonly #span: Span | undefined;
  readonly #context: Context | undefined;
  readonly #record: RoundRecord | undefined;
  readonly #started = performance.now();

  constructor(scope: TelemetryScope, shapes: RequestShapes, request: JsonRpcRequest, via: ServedVia) {
    const { otel } = scope;
    const params = request.params ?? {};
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const version = protocolVersion(meta, via);
    const transport = via.transport;
    this.#scope = scope;
    this.#shape = shapes.of(
      request.method,
      params,
      `${transport?.kind ?? ""}/${transport?.kind === "http" ? (transport.httpVersion ?? "") : ""}/${version ?? ""}`,
      () => ({
        ...transportAttributes(transport),
        ...(version === undefined ? {} : { [ATTR.mcpProtocolVersion]: version }),
      }),
    );
    if (scope.tracing) {
      const parent = parentOf(scope, meta);
      // The transport's own span (an HTTP server span, say) is kept as a link: MCP context is the parent.
      // In one process (the memory transport) the ambient context is the client's span: already the parent.
      const ambient = otel.trace.getSpanContext(otel.context.active());
      const linked =
        ambient !== undefined &&
        otel.trace.isSpanContextValid(ambient) &&
        ambient.spanId !== otel.trace.getSpanContext(parent)?.spanId;
      const links: Link[] | undefined = linked ? [{ context: ambient }] : undefined;
      const span = scope.tracer.startSpan(
        this.#shape.spanName,
        {
          kind: otel.SpanKind.SERVER,
          attributes: { ...this.#shape.attributes, ...ownAttributes(request, params, via) },
          ...(links ? { links } : {}),
        },
        parent,
      );
      this.#span = span;
      this.#context = otel.trace.setSpan(parent, span);
    }
    // With nothing recording, the flow is not followed either: the tokens stay as they were.
    const recording = this.#span?.isRecording() === true || scope.metering;
    this.#record = recording ? new RoundRecord(scope, this.#span, this.#shape.target) : undefined;
  }

  run<A>(handle: () => Promise<A>): Promise<A> {
    const context = this.#context;
    if (this.#record === undefined) {
      return context === undefined ? handle() : this.#scope.otel.context.with(context, handle);
    }
    return context === undefined
      ? withRoundRecord(this.#record, handle)
      : withRoundRecord(this.#record, () => this.#scope.otel.context.with(context, handle));
  }

  finish(answer: Answer): void {
    const span = this.#span;
    try {
      const { result, error } = answer.message;
      const outcome: Attributes = error
        ? errorCodeAttributes(error.code)
        : isRecord(result)
          ? resultAttributes(result)
          : NO_OUTCOME;
      const flow = this.#record?.finish(outcome[ATTR.resultType]);
      if (span?.isRecording()) {
        span.setAttributes(outcome);
        if (flow !== undefined) span.setAttributes(flow);
        if (outcome[ATTR.errorType] !== undefined) {
          const { otel } = this.#scope;
          span.setStatus({ code: otel.SpanStatusCode.ERROR, ...(error ? { message: error.message } : {}) });
        }
      }
      if (this.#scope.metering) {
        const histogram = instrumentsOf(this.#scope.meter, "server", durationHistogram);
        histogram.record((performance.now() - this.#started) / 1000, this.#shape.metric(outcome));
      }
    } catch {
      // The answer stands: telemetry that cannot be recorded is dropped.
    } finally {
      span?.end();
    }
  }
}

/**
 * The server side of the MCP conventions: one SERVER span per request, its parent the trace context in
 * `params._meta`, and the operation-duration histogram. Wraps dispatch at one point, so every
 * transport and both eras are covered. What is alike for every request to one tool is built once
 * (RequestShapes); with no SDK registered a request costs a few identity checks.
 */
export class ServerTelemetry {
  readonly #source: TelemetrySource;
  readonly #shapes = new RequestShapes();

  constructor(option: TelemetryOption | undefined) {
    this.#source = new TelemetrySource(option);
  }

  /** Serves the request inside its span; a failing provider costs the span, never the request. */
  async observe<A extends Answer>(
    request: JsonRpcRequest,
    via: ServedVia,
    handle: () => Promise<A>,
  ): Promise<A> {
    let served: ServedRequest | undefined;
    try {
      const now = this.#source.scopeNow();
      const scope = now === null ? await this.#source.scope() : now;
      if (scope !== undefined && (scope.tracing || scope.metering)) {
        served = new ServedRequest(scope, this.#shapes, request, via);
      }
    } catch {
      served = undefined;
    }
    if (served === undefined) return handle();
    const answer = await served.run(handle);
    served.finish(answer);
    return answer;
  }
}
