import type { Attributes, Histogram, Link, Meter } from "@opentelemetry/api";
import { isRecord } from "../../protocol/is-record.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../protocol/telemetry/names.js";
import {
  errorCodeAttributes,
  metaGetter,
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
import { META } from "../../protocol/versions.js";
import type { TransportInfo } from "../context.js";
import { RoundRecord, withRoundRecord } from "./round-record.js";

/** What dispatch knows of a request besides its message: the era and the transport. */
export interface ServedVia {
  readonly legacy?: { readonly protocolVersion: string };
  readonly transport?: TransportInfo;
}

/** A request whose span has started: dispatch runs inside it, and its answer ends it. */
interface ServedRequest {
  run<A>(handle: () => Promise<A>): Promise<A>;
  finish(answer: Answer): void;
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

function transportAttributes(transport: TransportInfo | undefined): Attributes {
  if (transport?.kind === "http")
    return { [ATTR.networkTransport]: "tcp", [ATTR.networkProtocolName]: "http" };
  if (transport?.kind === "stdio") return { [ATTR.networkTransport]: "pipe" };
  return {};
}

function protocolVersion(meta: Readonly<Record<string, unknown>>, via: ServedVia): string | undefined {
  if (via.legacy) return via.legacy.protocolVersion;
  const version = meta[META.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

/** A 2025-era session's id, which only its HTTP requests carry. */
function sessionId(via: ServedVia): string | undefined {
  if (!via.legacy) return undefined;
  const header = via.transport?.headers?.["mcp-session-id"];
  return typeof header === "string" ? header : undefined;
}

function requestFacts(request: JsonRpcRequest, via: ServedVia): Attributes {
  const params = request.params ?? {};
  const meta = isRecord(params._meta) ? params._meta : {};
  const attributes: Attributes = {
    ...requestAttributes(request.method, params),
    ...transportAttributes(via.transport),
    [ATTR.requestId]: String(request.id),
  };
  const version = protocolVersion(meta, via);
  if (version !== undefined) attributes[ATTR.mcpProtocolVersion] = version;
  const session = sessionId(via);
  if (session !== undefined) attributes[ATTR.mcpSessionId] = session;
  return attributes;
}

/**
 * The server side of the MCP conventions: one SERVER span per request, its parent the trace context in
 * `params._meta`, and the operation-duration histogram. Wraps dispatch at one point, so every
 * transport and both eras are covered.
 */
export class ServerTelemetry {
  readonly #source: TelemetrySource;

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
      served = await this.#start(request, via);
    } catch {
      served = undefined;
    }
    if (served === undefined) return handle();
    const answer = await served.run(handle);
    try {
      served.finish(answer);
    } catch {
      // The answer stands: telemetry that cannot be recorded is dropped.
    }
    return answer;
  }

  async #start(request: JsonRpcRequest, via: ServedVia): Promise<ServedRequest | undefined> {
    const scope = await this.#source.scope();
    if (scope === undefined) return undefined;
    const { otel, tracer } = scope;
    const params = request.params ?? {};
    const parent = otel.propagation.extract(
      otel.ROOT_CONTEXT,
      isRecord(params._meta) ? params._meta : {},
      metaGetter,
    );
    // The transport's own span (an HTTP server span, say) is kept as a link: MCP context is the parent.
    // In one process (the memory transport) the ambient context is the client's span: already the parent.
    const ambient = otel.trace.getSpanContext(otel.context.active());
    const parentSpan = otel.trace.getSpanContext(parent);
    const linked = ambient && otel.trace.isSpanContextValid(ambient) && ambient.spanId !== parentSpan?.spanId;
    const links: Link[] = linked ? [{ context: ambient }] : [];
    const attributes = requestFacts(request, via);
    const span = tracer.startSpan(
      spanName(request.method, params),
      { kind: otel.SpanKind.SERVER, attributes, links },
      parent,
    );
    // With nothing recording, the flow is not followed either: the tokens stay as they were.
    const recording = span.isRecording() || scope.meter !== otel.createNoopMeter();
    const record = recording
      ? new RoundRecord(scope, span, metricAttributes(requestAttributes(request.method, params)))
      : undefined;
    const started = performance.now();
    return {
      run: (handle) => {
        const work = () => otel.context.with(otel.trace.setSpan(parent, span), handle);
        return record ? withRoundRecord(record, work) : work();
      },
      finish: (answer) => {
        try {
          const { result, error } = answer.message;
          const outcome: Attributes = error
            ? errorCodeAttributes(error.code)
            : isRecord(result)
              ? resultAttributes(result)
              : {};
          span.setAttributes({ ...outcome, ...record?.finish(outcome[ATTR.resultType]) });
          if (outcome[ATTR.errorType] !== undefined) {
            span.setStatus({ code: otel.SpanStatusCode.ERROR, ...(error ? { message: error.message } : {}) });
          }
          const histogram = instrumentsOf(scope.meter, "server", durationHistogram);
          const seconds = (performance.now() - started) / 1000;
          histogram.record(seconds, metricAttributes({ ...attributes, ...outcome }));
        } finally {
          span.end();
        }
      },
    };
  }
}
