/** Index slots, a power of two: a token's slot is its first nonce bytes masked, random by design. */
const SLOTS = 512;
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
 * once: an index slot chosen by the token's nonce points at its raw bytes and payload, and a token
 * is found only if all of its bytes are the ones this engine sealed; a newer token landing in the
 * same slot, or the log wrapping over the bytes, just forgets it (it is then decrypted in full).
 */
export class MintedTokens {
  #arena: Buffer | undefined;
  /** Bytes ever appended to the log; a position in it is this modulo the log's size. */
  #written = 0;
  /** Where in the log each slot's entry starts, as a count of bytes ever appended; -1: empty. */
  readonly #start = new Float64Array(SLOTS).fill(-1);
  readonly #rawLength = new Uint32Array(SLOTS);
  readonly #payloadLength = new Uint32Array(SLOTS);
  /** Where the nonce starts in a raw token, whose bytes there pick the slot. */
  readonly #nonceAt: number;

  constructor(nonceAt: number) {
    this.#nonceAt = nonceAt;
  }

  /** Remembers that `raw` (the token's bytes, nonce included) was sealed from `payload`. */
  remember(raw: Uint8Array, payload: Uint8Array): void {
    if (payload.length > MAX_PAYLOAD_BYTES) return;
    const size = raw.length + payload.length;
    this.#arena ??= Buffer.allocUnsafeSlow(ARENA_BYTES);
    let at = this.#written % ARENA_BYTES;
    // An entry is never split across the log's end: skip to its start, which overwrites the tail.
    if (at + size > ARENA_BYTES) {
      this.#written += ARENA_BYTES - at;
      at = 0;
    }
    const slot = this.#slot(raw);
    this.#arena.set(raw, at);
    this.#arena.set(payload, at + raw.length);
    this.#start[slot] = this.#written;
    this.#rawLength[slot] = raw.length;
    this.#payloadLength[slot] = payload.length;
    this.#written += size;
  }

  /** A copy of the payload `raw` was sealed from, if this engine sealed exactly these bytes lately. */
  recall(raw: Uint8Array): Buffer | undefined {
    const arena = this.#arena;
    if (arena === undefined) return undefined;
    const slot = this.#slot(raw);
    const start = this.#start[slot] ?? -1;
    const rawLength = this.#rawLength[slot] ?? 0;
    const size = rawLength + (this.#payloadLength[slot] ?? 0);
    // Bytes appended since the entry began past a whole log's length have been written over.
    if (start < 0 || rawLength !== raw.length || this.#written - start > ARENA_BYTES) return undefined;
    const at = start % ARENA_BYTES;
    if (arena.compare(raw, 0, raw.length, at, at + rawLength) !== 0) return undefined;
    return Buffer.from(arena.subarray(at + rawLength, at + size));
  }

  #slot(raw: Uint8Array): number {
    const at = this.#nonceAt;
    return ((raw[at] ?? 0) | ((raw[at + 1] ?? 0) << 8)) & (SLOTS - 1);
  }
}
