/**
 * Reusable bytes for work that begins and ends inside one synchronous call: framing a token before
 * it is base64url-encoded, decoding one before it is decrypted, laying out a hash input. Each of
 * those used to allocate a buffer that was garbage a microsecond later, which cost more than the
 * copy itself. Nothing ever keeps or returns a view into these bytes, so reuse cannot leak one
 * call's data into another's result. No key material is ever written here.
 */
export class ScratchBytes {
  #bytes: Buffer;
  /** Caps how far the buffer grows: a larger request gets fresh bytes, so a huge token cannot pin memory. */
  readonly limit: number;

  constructor(initial: number, limit: number) {
    this.#bytes = Buffer.allocUnsafeSlow(initial);
    this.limit = limit;
  }

  /** At least `size` bytes, valid until the caller returns. Their contents are unspecified. */
  take(size: number): Buffer {
    if (size <= this.#bytes.length) return this.#bytes;
    if (size > this.limit) return Buffer.allocUnsafe(size);
    this.#bytes = Buffer.allocUnsafeSlow(Math.min(this.limit, Math.max(size, 2 * this.#bytes.length)));
    return this.#bytes;
  }
}
