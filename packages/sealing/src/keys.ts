import { typeName } from "./type-name.js";
import { isWellFormed } from "./utf8.js";

/**
 * A ring secret: raw bytes, or text used as its UTF-8 bytes (so `"k".repeat(32)` and the bytes of
 * that string are the same ring key, as in the reference implementation). Text is never hex- or
 * base64-decoded: a 64-character hex string is a 64-byte secret.
 */
export type RequestStateKey = Uint8Array | string;

/** Shortest secret we accept: anything less cannot carry 256 bits of randomness. */
export const MIN_KEY_BYTES = 32;

/** How to make a good secret, quoted by every error about a missing or short one. */
export const KEYGEN_HINT =
  `Generate one with: node -e "console.log(require('node:crypto').randomBytes(32).toString('hex'))"` +
  " or: openssl rand -hex 32";

/**
 * Checks a ring of secrets and returns private copies of their bytes, so a caller that later
 * reuses or wipes its buffer cannot change the ring. Nothing is coerced: a number or an
 * ArrayBuffer here is a mistake (`Buffer.alloc(32)` would be all zeros), so it is refused.
 */
export function copyRingSecrets(keys: unknown, owner: string): Uint8Array[] {
  if (!Array.isArray(keys)) {
    throw new TypeError(
      `${owner} takes keys as an array of secrets, newest first (keys[0] mints); got ${typeName(keys)}. ${KEYGEN_HINT}`,
    );
  }
  if (keys.length === 0) {
    throw new Error(`${owner} requires at least one key: pass keys: [secret]. ${KEYGEN_HINT}`);
  }
  return keys.map((key: unknown, index) => copySecret(key, index));
}

function copySecret(key: unknown, index: number): Uint8Array {
  const bytes = secretBytes(key, index);
  if (bytes.byteLength < MIN_KEY_BYTES) {
    throw new RangeError(
      `request-state keys must be at least ${MIN_KEY_BYTES} bytes of secret randomness; ` +
        `keys[${index}] is ${bytes.byteLength} bytes. ${KEYGEN_HINT}`,
    );
  }
  return bytes;
}

function secretBytes(key: unknown, index: number): Uint8Array {
  if (typeof key === "string") {
    if (!isWellFormed(key)) {
      throw new TypeError(
        `keys[${index}] is a string with a lone surrogate, so it has no UTF-8 form; pass the secret as bytes or as hex text`,
      );
    }
    return new Uint8Array(Buffer.from(key, "utf8"));
  }
  if (key instanceof Uint8Array) return new Uint8Array(key);
  throw new TypeError(
    `request-state keys must be Uint8Array (Buffer) or string; keys[${index}] is ${typeName(key)}. ` +
      "Pass the secret itself, e.g. Buffer.from(process.env.REQUEST_STATE_KEY, 'hex')",
  );
}
