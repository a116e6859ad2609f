import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface MessageSigner {
  sign(text: string): string;
  /** Compared in constant time, so a forger learns nothing from how long a refusal takes. */
  verify(text: string, signature: string): boolean;
}

/**
 * HMAC-SHA256 with a key made here and kept nowhere else: what it signs is valid on this process only,
 * which is what a cookie that nothing persists needs.
 */
export function createMessageSigner(): MessageSigner {
  const key = randomBytes(32);
  const sign = (text: string) => createHmac("sha256", key).update(text).digest("base64url");
  return {
    sign,
    verify(text, signature) {
      const expected = Buffer.from(sign(text));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
