import { randomId } from "../random-id.js";

/**
 * What a server seals into each requestState it hands out (the sealed layer's trail), so that the next
 * round, on whichever instance, knows its flow and round and can link its span to this one. The flow
 * id is random: nothing in it derives from the requestState or reveals it.
 *
 *   1.<flow: 16 hex>.<round>[.<trace id: 32 hex>.<span id: 16 hex>.<trace flags: 2 hex>]
 */
export interface RoundTrail {
  readonly flowId: string;
  /** The round that sealed it: 1 for the first request of the call. */
  readonly round: number;
  /** That round's server span, when one was recorded. */
  readonly span?: { readonly traceId: string; readonly spanId: string; readonly traceFlags: number };
}

const TRAIL = /^1\.([0-9a-f]{16})\.([1-9][0-9]{0,5})(?:\.([0-9a-f]{32})\.([0-9a-f]{16})\.([0-9a-f]{2}))?$/;

export function newFlowId(): string {
  return randomId(8, "hex");
}

export function writeTrail(trail: RoundTrail): string {
  const head = `1.${trail.flowId}.${trail.round}`;
  const span = trail.span;
  if (span === undefined) return head;
  return `${head}.${span.traceId}.${span.spanId}.${span.traceFlags.toString(16).padStart(2, "0")}`;
}

/** Undefined for a state sealed without a trail (an older release) or with one this release cannot read. */
export function readTrail(text: string | undefined): RoundTrail | undefined {
  const match = text === undefined ? null : TRAIL.exec(text);
  if (match === null) return undefined;
  const [, flowId = "", round = "", traceId, spanId, flags] = match;
  const trail = { flowId, round: Number(round) };
  if (traceId === undefined || spanId === undefined || flags === undefined) return trail;
  return { ...trail, span: { traceId, spanId, traceFlags: Number.parseInt(flags, 16) } };
}
