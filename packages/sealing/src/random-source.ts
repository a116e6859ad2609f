import { randomFillSync } from "node:crypto";

/** Returns `size` fresh random bytes. Only tests and vectors replace the system source. */
export type RandomSource = (size: number) => Uint8Array;

const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * Cryptographically secure bytes, drawn from a pool refilled in 4 KiB batches: a nonce or a salt is
 * 8 to 12 bytes, and one call into the OS generator per token cost more than the AES-GCM itself.
 * Each byte is handed out once, and a refill allocates a new pool, so a returned view never changes.
 */
export const systemRandom: RandomSource = (size) => {
  if (size > POOL_SIZE) return randomFillSync(Buffer.allocUnsafe(size));
  if (offset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_SIZE));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
};
