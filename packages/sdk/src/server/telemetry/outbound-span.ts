import type { Attributes } from "@opentelemetry/api";
import { isRecord } from "../../protocol/is-record.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { ATTR } from "../../protocol/telemetry/names.js";
import { errorCodeAttributes, metaSetter } from "../../protocol/telemetry/request-attributes.js";
import type { TelemetryScope } from "../../protocol/telemetry/telemetry-options.js";
import { parentOf } from "../../protocol/telemetry/trace-parent.js";
import { type ServedVia, sessionId, transportAttributes } from "./served-via.js";

/** One request the server puts to a 2025-era client, and the client request it serves. */
export interface OutboundQuestion {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The `_meta` of the client's request being served: its trace context is the span's parent. */
  readonly callerMeta: Readonly<Record<string, unknown>> | undefined;
  readonly via: ServedVia;
}

/** The client's answer: its result, or the JSON-RPC error it returned. */
export type ClientReply = { result: unknown } | { error: { code: number; message: string } };

/** Sends the request with these params; `sent` learns the id it went out under. */
export type OutboundSend = (
  params: Record<string, unknown> | undefined,
  sent: (id: RequestId) => void,
) => Promise<ClientReply>;

/**
 * The roles swapped: the server's CLIENT span for its question, the client's answer a SERVER span
 * under it. Names and kinds only, as everywhere: never the question or the answer.
 */
export async function askTraced(
  scope: TelemetryScope,
  question: OutboundQuestion,
  send: OutboundSend,
): Promise<ClientReply> {
  const { otel, tracer } = scope;
  const { method, params, via } = question;
  const attributes: Attributes = { [ATTR.mcpMethodName]: method, ...transportAttributes(via.transport) };
  if (via.legacy) attributes[ATTR.mcpProtocolVersion] = via.legacy.protocolVersion;
  const session = sessionId(via);
  if (session !== undefined) attributes[ATTR.mcpSessionId] = session;
  const parent = parentOf(scope, question.callerMeta);
  const span = tracer.startSpan(method, { kind: otel.SpanKind.CLIENT, attributes }, parent);
  const meta: Record<string, unknown> = { ...(isRecord(params?._meta) ? params._meta : {}) };
  otel.propagation.inject(otel.trace.setSpan(parent, span), meta, metaSetter);
  const traced = Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
  try {
    const reply = await send(traced, (id) => span.setAttribute(ATTR.requestId, String(id)));
    if ("error" in reply) {
      span.setAttributes(errorCodeAttributes(reply.error.code));
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: reply.error.message });
    }
    return reply;
  } catch (error) {
    span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : "_OTHER");
    span.setStatus({ code: otel.SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
