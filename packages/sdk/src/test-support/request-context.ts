import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import { RequestAbort } from "../protocol/request-abort.js";
import { RequestMetaSchema } from "../protocol/schemas/envelope.js";
import { createRequestContext, type RequestContext } from "../server/context.js";
import { type EnvelopeOptions, envelope } from "./messages.js";

export interface RecordingContext {
  context: RequestContext;
  /** Every notification the context sent, in order. */
  sent: JsonRpcNotification[];
  abort: RequestAbort;
}

/** A request context outside any transport, over a correct envelope, that records what it sends. */
export function recordingContext(
  options: EnvelopeOptions = {},
  request: { requestId?: string | number; method?: string } = {},
): RecordingContext {
  const sent: JsonRpcNotification[] = [];
  const abort = new RequestAbort();
  const context = createRequestContext({
    requestId: request.requestId ?? 1,
    method: request.method ?? "tools/call",
    meta: RequestMetaSchema.parse(envelope(options)),
    signal: abort,
    auth: undefined,
    transport: { kind: "memory" },
    sink: (message) => {
      sent.push(message);
    },
  });
  return { context, sent, abort };
}
