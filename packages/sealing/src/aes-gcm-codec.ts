import { AeadTokens } from "./aead-tokens.js";
import { KeyRing, type TokenProfile } from "./key-ring.js";
import { copyRingSecrets, type RequestStateKey } from "./keys.js";
import type { RandomSource } from "./random-source.js";
import type { RequestStateCodec } from "./request-state-codec.js";

/** The reference SDK's format, byte for byte, so a fleet can mix Python and TypeScript servers. */
export const V1_PROFILE: TokenProfile = Object.freeze({
  prefix: "v1.",
  hkdfInfo: "mcp/request-state/v1/aes-256-gcm",
  kidLabel: "mcp/request-state/v1/kid:",
});

let tokensOf: (codec: AesGcmRequestStateCodec) => AeadTokens;

/**
 * The built-in codec: AES-256-GCM under a ring of secrets, encrypted (not merely signed), tokens
 * `v1.<base64url>`. `keys[0]` mints and every key opens, which is what makes rotation possible:
 * `[old, new]` on every instance, then `[new, old]`, then `[new]` once a TTL has passed.
 */
export class AesGcmRequestStateCodec implements RequestStateCodec {
  readonly #tokens: AeadTokens;

  static {
    tokensOf = (codec) => codec.#tokens;
  }

  constructor(keys: readonly RequestStateKey[]) {
    const secrets = copyRingSecrets(keys, "AesGcmRequestStateCodec");
    this.#tokens = new AeadTokens(V1_PROFILE, new KeyRing(secrets, V1_PROFILE, "keys"));
    for (const secret of secrets) secret.fill(0);
  }

  seal(payload: Uint8Array): string {
    return this.#tokens.seal(payload);
  }

  unseal(token: string): Uint8Array {
    return this.#tokens.open(token);
  }
}

/**
 * Internal, for test vectors only (not exported by the package): makes the codec use a fixed nonce
 * source. A repeated nonce under one key destroys AES-GCM, so production code must never call this.
 */
export function pinNonceSource(codec: AesGcmRequestStateCodec, source: RandomSource): void {
  tokensOf(codec).random = source;
}
