import type { Attributes, Context, Histogram, Link, Meter, Span } from "@opentelemetry/api";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/is-record.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../protocol/telemetry/names.js";
import { errorCodeAttributes, resultAttributes } from "../../protocol/telemetry/request-attributes.js";
import { type RequestShape, RequestShapes } from "../../protocol/telemetry/request-shape.js";
import {
  instrumentsOf,
  type TelemetryOption,
  type TelemetryScope,
  TelemetrySource,
} from "../../protocol/telemetry/telemetry-options.js";
import { parentOf } from "../../protocol/telemetry/trace-parent.js";
import { META } from "../../protocol/versions.js";
import { askTraced, type ClientReply, type OutboundQuestion, type OutboundSend } from "./outbound-span.js";
import { RoundRecord, withRoundRecord } from "./round-record.js";
import { type ServedVia, sessionId, transportAttributes } from "./served-via.js";

export type { ServedVia } from "./served-via.js";

/** Dispatch's answer, as much of it as telemetry reads. */
interface Answer {
  readonly message: { readonly result?: unknown; readonly error?: { code: number; message: string } };
}

/** How a request that threw ends its span: a JSON-RPC error by its code, anything else as -32603. */
function thrown(error: unknown): Answer {
  if (error instanceof McpError) return { message: { error: { code: error.code, message: error.message } } };
  return { message: { error: { code: ErrorCode.InternalError, message: "Internal error" } } };
}

function durationHistogram(meter: Meter): Histogram {
  return meter.createHistogram(METRIC.serverDuration, {
    description: "Time the server took to answer one MCP request",
    unit: "s",
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
}

function protocolVersion(
  meta: Readonly<Record<string, unknown>> | undefined,
  via: ServedVia,
): string | undefined {
  if (via.legacy) return via.legacy.protocolVersion;
  const version = meta?.[META.protocolVersion];
  return typeof version === "string" ? version : undefined;
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
        { kind: otel.SpanKind.SERVER, attributes: this.#shape.attributes, ...(links ? { links } : {}) },
        parent,
      );
      // What only this request has is built only for a span that records (a sampler may drop it).
      if (span.isRecording()) span.setAttributes(ownAttributes(request, params, via));
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

  /** `late`: what is learnt only from the answer (the session an initialize opened). */
  finish(answer: Answer, late?: Attributes): void {
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
        if (late !== undefined) span.setAttributes(late);
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
    let served = this.#serve(request, via);
    // Only the first requests, while the API is still loading, wait to learn whether it is there.
    if (served === null) served = await this.#serveLoaded(request, via);
    if (served === undefined) return handle();
    const answer = await served.run(handle);
    served.finish(answer);
    return answer;
  }

  /**
   * A 2025-era session's own request (initialize, ping, logging/setLevel, resources/subscribe), which
   * never reaches dispatch: the same SERVER span. `answerOf` reads the work's response, and what only
   * it tells (the session an initialize opened); a throw ends the span as an error and goes on.
   */
  async observeSession<T>(
    request: JsonRpcRequest,
    via: ServedVia,
    work: () => Promise<T>,
    answerOf: (value: T) => { answer: Answer; late?: Attributes },
  ): Promise<T> {
    let served = this.#serve(request, via);
    // Only the first requests, while the API is still loading, wait to learn whether it is there.
    if (served === null) served = await this.#serveLoaded(request, via);
    if (served === undefined) return work();
    let value: T;
    try {
      value = await served.run(work);
    } catch (error) {
      served.finish(thrown(error));
      throw error;
    }
    const { answer, late } = answerOf(value);
    served.finish(answer, late);
    return value;
  }

  /**
   * A request the server puts to a 2025-era client over its session (elicitation/create,
   * sampling/createMessage, roots/list): a CLIENT span, its context in the request's `_meta`.
   */
  async ask(question: OutboundQuestion, send: OutboundSend): Promise<ClientReply> {
    let scope: TelemetryScope | undefined | null;
    try {
      scope = this.#source.scopeNow();
      if (scope === null) scope = await this.#source.scope();
    } catch {
      scope = undefined;
    }
    if (!scope?.tracing) return send(question.params, () => {});
    return askTraced(scope, question, send);
  }

  #serve(request: JsonRpcRequest, via: ServedVia): ServedRequest | undefined | null {
    try {
      const scope = this.#source.scopeNow();
      if (scope === null) return null;
      if (scope === undefined || (!scope.tracing && !scope.metering)) return undefined;
      return new ServedRequest(scope, this.#shapes, request, via);
    } catch {
      return undefined;
    }
  }

  async #serveLoaded(request: JsonRpcRequest, via: ServedVia): Promise<ServedRequest | undefined> {
    await this.#source.scope().catch(() => undefined);
    return this.#serve(request, via) ?? undefined;
  }
}
