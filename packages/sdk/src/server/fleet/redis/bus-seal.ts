import {
  CLOCK_SKEW_SECONDS,
  InvalidRequestState,
  openValue,
  type RequestStateCodec,
  sealValue,
} from "@roundtrip/sealing";
import type { BusEvent } from "../notification-bus.js";

/**
 * What a bus message is sealed for (`sealValue`'s context): a requestState or any other value sealed
 * under the same keys never opens as one, and a bus message never opens as them.
 */
const PURPOSE = "roundtrip/bus/v1";
/** How old a message may be, and how far ahead of this clock: the fleet's clocks are never quite in step. */
const FRESH_MS = CLOCK_SKEW_SECONDS * 1000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Why a message was dropped, for the log (never anything of its content): it does not open as a bus
 * message under the keys, it opens but is no well-formed message, it is older (or newer) than a
 * minute, or it was heard before.
 */
export type BusRefusal = "keys" | "purpose" | "stale" | "replay";

/**
 * `codec` is the short reason it did not open: the codec's ("unknown key", "keys not loaded",
 * "malformed"), or "seal" for a value sealed for another purpose.
 */
export type OpenedMessage = { from: string; event: BusEvent } | { refused: BusRefusal; codec?: string };

interface Sealed {
  from: string;
  /** Counts the sender's messages: one heard again, or behind a later one, is a replay. */
  seq: number;
  /** When it was sealed, in ms. */
  at: number;
  event: BusEvent;
}

export interface BusSealOptions {
  /** The request-state keys every instance of the fleet shares. */
  codec: RequestStateCodec;
  /** This instance's name on the bus. */
  from: string;
  /** The current time in ms; tests pin it. */
  now?: () => number;
}

/**
 * What one instance tells the others, sealed under the fleet's request-state keys (AES-256-GCM with
 * the built-in codec: read by none, altered or made by none without the keys), and opened only when
 * it is a bus message, fresh, and not heard before. Each sender's messages are counted in the order
 * it publishes them, which is the order one Redis connection delivers them in.
 */
export class BusSeal {
  readonly #codec: RequestStateCodec;
  readonly #from: string;
  readonly #now: () => number;
  /** The last count heard from each sender, and when: forgotten once older than a message may be. */
  readonly #heard = new Map<string, { seq: number; at: number }>();
  #seq = 0;

  constructor(options: BusSealOptions) {
    this.#codec = options.codec;
    this.#from = options.from;
    this.#now = options.now ?? Date.now;
  }

  /** Throws what the codec throws when it cannot seal (its keys not loaded yet). */
  seal(event: BusEvent): string {
    this.#seq += 1;
    const sealed: Sealed = { from: this.#from, seq: this.#seq, at: this.#now(), event };
    return sealValue(this.#codec, encoder.encode(JSON.stringify(sealed)), PURPOSE);
  }

  open(message: string): OpenedMessage {
    let plaintext: string;
    try {
      plaintext = decoder.decode(openValue(this.#codec, message, PURPOSE));
    } catch (error) {
      return error instanceof InvalidRequestState
        ? { refused: "keys", codec: error.reason }
        : { refused: "keys" };
    }
    const sealed = parse(plaintext);
    if (sealed === undefined) return { refused: "purpose" };
    const now = this.#now();
    if (Math.abs(now - sealed.at) > FRESH_MS) return { refused: "stale" };
    this.#forgetOlderThan(now - FRESH_MS);
    const last = this.#heard.get(sealed.from);
    if (last !== undefined && sealed.seq <= last.seq) return { refused: "replay" };
    this.#heard.set(sealed.from, { seq: sealed.seq, at: sealed.at });
    return { from: sealed.from, event: sealed.event };
  }

  /** A sender silent for longer than a message stays fresh can only be replayed as stale. */
  #forgetOlderThan(at: number): void {
    for (const [from, last] of this.#heard) if (last.at < at) this.#heard.delete(from);
  }
}

function parse(plaintext: string): Sealed | undefined {
  let value: unknown;
  try {
    value = JSON.parse(plaintext);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const sealed = value as Partial<Sealed>;
  const event = sealed.event as { type?: unknown } | undefined;
  const wellFormed =
    typeof sealed.from === "string" &&
    Number.isSafeInteger(sealed.seq) &&
    Number.isFinite(sealed.at) &&
    typeof event?.type === "string";
  return wellFormed ? (sealed as Sealed) : undefined;
}
