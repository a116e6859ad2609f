import { isRecord } from "../../protocol/is-record.js";

/**
 * The once layer's format: what a `once: true` handler's round carries around the handler's own state
 *
 *   {"once":1,"f":<flow id>,"r":<round id>,"t":<first-mint time, unix s>,"s":<the handler's state|null>}
 *
 * The handler's state is opaque here. Where this layer sits among the others: request-state-layers.ts.
 */
export interface OnceEnvelope {
  /** The flow id, minted when the first round asks. */
  f: string;
  /** The round id, minted on every round that asks. */
  r: string;
  /** When the flow's first round asked, in unix seconds. */
  t: number;
  /** The handler's own state, if it kept one. */
  s: string | undefined;
}

const ENVELOPE_VERSION = 1;

/** The envelope in a plaintext, or undefined when the plaintext is not one. */
export function readOnceEnvelope(plaintext: string): OnceEnvelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || parsed.once !== ENVELOPE_VERSION) return undefined;
  const { f, r, t, s } = parsed;
  if (typeof f !== "string" || typeof r !== "string" || typeof t !== "number" || !Number.isFinite(t)) {
    return undefined;
  }
  if (s !== null && typeof s !== "string") return undefined;
  return { f, r, t, s: s ?? undefined };
}

export function writeOnceEnvelope(envelope: OnceEnvelope): string {
  const { f, r, t, s } = envelope;
  return JSON.stringify({ once: ENVELOPE_VERSION, f, r, t, s: s ?? null });
}
