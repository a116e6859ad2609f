import { timingSafeEqual } from "node:crypto";

/** Index slots, a power of two: a token's slot is two of its nonce bytes masked, random by design. */
const SLOTS = 4096;
/** The log the remembered tokens and payloads are written to, round and round. */
const ARENA_BYTES = 256 * 1024;
/** Payloads above this size are not remembered: rare, and a few of them would fill the log. */
const MAX_PAYLOAD_BYTES = 2048;

/**
 * The tokens an engine sealed lately and the payload each one holds, kept outside the JS heap.
 *
 * A flow's second round usually comes back to the instance that sealed its first, a few
 * milliseconds later, and finding its payload here spares decrypting the bytes just encrypted. Kept
 * as objects (a token string, a payload buffer, a map entry each), every one of them lived across a
 * young-generation collection or two and was promoted: under load the heap grew its young
 * generation and collected the old one every second or so, in pauses of 6 to 11 ms, which cost
 * more than the decryption saved. Here a remembered token is bytes copied into one log allocated
 * at the first seal: an index slot chosen by the token's nonce points at its raw bytes and payload,
 * and a token is found only if all of its bytes are the ones this engine sealed.
 *
 * What is found is a matter of chance, not a promise: a newer token landing in the same slot, or the
 * log coming round over an entry's bytes, forgets it, and it is then decrypted in full. The log holds
 * about 600 tokens of 200-byte payloads and at least 62 of the largest remembered; of the last 100
 * sealed, about one in 80 shares a slot with a newer one. Forgotten entries stay in the log until it
 * is written over: plaintext of recent states, as the heap held them before until collected.
 */
interface Log {
  bytes: Buffer;
  /** Where in the log each slot's entry starts, as a count of bytes ever appended; -1: empty. */
  start: Float64Array;
  /** Each slot's raw token length, then its payload length. */
  lengths: Uint32Array;
}

export class MintedTokens {
  /** Made at the first seal: a codec that only opens, or is never used, holds none of it. */
  #log: Log | undefined;
  /** Bytes ever appended to the log, the tails skipped at its end included; a position is this modulo its size. */
  #written = 0;
  /** Where the nonce starts in a raw token, whose bytes there pick the slot. */
  readonly #nonceAt: number;

  constructor(nonceAt: number) {
    this.#nonceAt = nonceAt;
  }

  /** Remembers that `raw` (the token's bytes, nonce included) was sealed from `payload`. */
  remember(raw: Uint8Array, payload: Uint8Array): void {
    const size = raw.length + payload.length;
    if (payload.length > MAX_PAYLOAD_BYTES || size > ARENA_BYTES) return;
    this.#log ??= {
      bytes: Buffer.allocUnsafeSlow(ARENA_BYTES),
      start: new Float64Array(SLOTS).fill(-1),
      lengths: new Uint32Array(2 * SLOTS),
    };
    const log = this.#log;
    let at = this.#written % ARENA_BYTES;
    // An entry is never split across the log's end: the tail is skipped, and counts as written over.
    if (at + size > ARENA_BYTES) {
      this.#written += ARENA_BYTES - at;
      at = 0;
    }
    const slot = this.#slot(raw);
    log.bytes.set(raw, at);
    log.bytes.set(payload, at + raw.length);
    log.start[slot] = this.#written;
    log.lengths[2 * slot] = raw.length;
    log.lengths[2 * slot + 1] = payload.length;
    this.#written += size;
  }

  /** A copy of the payload `raw` was sealed from, if this engine sealed exactly these bytes lately. */
  recall(raw: Uint8Array): Buffer | undefined {
    const log = this.#log;
    if (log === undefined) return undefined;
    const slot = this.#slot(raw);
    const start = log.start[slot] ?? -1;
    const rawLength = log.lengths[2 * slot] ?? 0;
    const size = rawLength + (log.lengths[2 * slot + 1] ?? 0);
    // Past a whole log's length of appends since the entry began, its bytes may be another entry's,
    // one that could spell this token and then hold a payload of someone else's choosing.
    if (start < 0 || this.#written - start > ARENA_BYTES) return undefined;
    // timingSafeEqual needs equal lengths; a token of another length was not the one sealed here.
    if (rawLength !== raw.length) return undefined;
    const at = start % ARENA_BYTES;
    // In constant time: the slot is the caller's choice, and a compare that stopped at the first
    // difference would time how much of a recent token it had guessed.
    if (!timingSafeEqual(raw, log.bytes.subarray(at, at + rawLength))) return undefined;
    return Buffer.from(log.bytes.subarray(at + rawLength, at + size));
  }

  #slot(raw: Uint8Array): number {
    const at = this.#nonceAt;
    return ((raw[at] ?? 0) | ((raw[at + 1] ?? 0) << 8)) & (SLOTS - 1);
  }
}
