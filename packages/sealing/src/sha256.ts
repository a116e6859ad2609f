import * as crypto from "node:crypto";

type OneShotHash = (algorithm: string, data: crypto.BinaryLike, outputEncoding: "buffer") => Buffer;

// crypto.hash (Node >= 20.12) skips creating a Hash object, which costs more than hashing the few
// hundred bytes we digest per token; older Node 20 releases fall back to createHash.
const oneShot = (crypto as { hash?: OneShotHash }).hash;

/** SHA-256 of the given bytes (text is UTF-8). */
export function sha256(data: crypto.BinaryLike): Buffer {
  if (oneShot !== undefined) return oneShot("sha256", data, "buffer");
  return crypto.createHash("sha256").update(data).digest();
}
