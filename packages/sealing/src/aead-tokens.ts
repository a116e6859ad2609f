import { createCipheriv, createDecipheriv } from "node:crypto";
import { base64UrlDecodedLength, isCanonicalBase64Url } from "./base64url.js";
import { rejectRequestState } from "./invalid-request-state.js";
import { type KeyRing, KID_BYTES, type TokenProfile } from "./key-ring.js";
import { MintedTokens } from "./minted-tokens.js";
import { type RandomSource, systemRandom } from "./random-source.js";
import { ScratchBytes } from "./scratch-bytes.js";

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const NONCE_END = KID_BYTES + NONCE_BYTES;
const MIN_RAW_BYTES = NONCE_END + TAG_BYTES;

/**
 * The binary token (`kid || nonce || ciphertext || tag`) on its way to or from base64url. It only
 * ever holds public bytes, and both seal and open are done with it before they return: the string
 * a seal returns is encoded from it, and the plaintext an open returns is the decipher's own buffer
 * or a copy out of the memo of minted tokens.
 */
const frames = new ScratchBytes(2048, 64 * 1024);

/**
 * The AES-256-GCM token engine shared by the built-in and the KMS codecs:
 * `prefix + base64url_nopad(kid(4) || nonce(12) || ciphertext || tag(16))`, AAD = `prefix || kid`.
 */
export class AeadTokens {
  /** Replaced only by test vectors that pin the nonce. */
  random: RandomSource = systemRandom;

  /**
   * The payload of tokens this engine sealed lately. Round 2 usually comes back to the instance
   * that sealed round 1, and opening what it sealed would decrypt the very bytes it just encrypted:
   * a token whose bytes are exactly what was minted, under a ring that never changes, has a good tag
   * and this payload for plaintext, the same verdict as decrypting it. Anything not found there
   * (another instance's token, an old one or one the memo forgot, a forgery) is decrypted and
   * verified in full.
   */
  readonly #minted = new MintedTokens(KID_BYTES);

  readonly profile: TokenProfile;
  readonly ring: KeyRing;

  constructor(profile: TokenProfile, ring: KeyRing) {
    this.profile = profile;
    this.ring = ring;
  }

  seal(payload: Uint8Array): string {
    const { kid, key, aad } = this.ring.minting;
    const nonce = this.random(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const ciphertext = cipher.update(payload);
    cipher.final();
    const tagStart = NONCE_END + ciphertext.length;
    const size = tagStart + TAG_BYTES;
    const raw = frames.take(size);
    kid.copy(raw, 0);
    raw.set(nonce, KID_BYTES);
    ciphertext.copy(raw, NONCE_END);
    cipher.getAuthTag().copy(raw, tagStart);
    this.#minted.remember(raw.subarray(0, size), payload);
    return this.profile.prefix + raw.toString("base64url", 0, size);
  }

  open(token: string): Buffer {
    const raw = this.#decode(token);
    // A copy: the caller owns what open returns and may change it.
    const minted = this.#minted.recall(raw);
    if (minted !== undefined) return minted;
    const ringKey = this.ring.find(raw.readUInt32BE(0));
    if (ringKey === undefined) throw rejectRequestState("unknown key");
    const decipher = createDecipheriv("aes-256-gcm", ringKey.key, raw.subarray(KID_BYTES, NONCE_END), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(ringKey.aad);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plaintext = decipher.update(raw.subarray(NONCE_END, raw.length - TAG_BYTES));
    try {
      decipher.final();
    } catch {
      throw rejectRequestState("seal");
    }
    return plaintext;
  }

  /** The token's bytes, a view of `frames` valid until `open` returns. */
  #decode(token: string): Buffer {
    const { prefix } = this.profile;
    if (typeof token !== "string" || !token.startsWith(prefix)) throw rejectRequestState("malformed");
    const text = token.slice(prefix.length);
    const size = base64UrlDecodedLength(text.length);
    if (!isCanonicalBase64Url(text) || size < MIN_RAW_BYTES) throw rejectRequestState("malformed");
    const raw = frames.take(size);
    raw.write(text, 0, size, "base64url");
    return raw.subarray(0, size);
  }
}
