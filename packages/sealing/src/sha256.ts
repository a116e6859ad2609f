import { type BinaryLike, hash } from "node:crypto";

/**
 * SHA-256 of the given bytes (text is UTF-8). The one-shot crypto.hash skips creating a Hash object,
 * which costs more than hashing the few hundred bytes digested per token.
 */
export function sha256(data: BinaryLike): Buffer {
  return hash("sha256", data, "buffer");
}
