import { AeadTokens } from "../aead-tokens.js";
import { KeyRing, type TokenProfile } from "../key-ring.js";
import type { RandomSource } from "../random-source.js";
import type { RequestStateCodec } from "../request-state-codec.js";

/**
 * Its own prefix and derivation labels: a data key shared with the built-in ring (see
 * unwrapDataKeys) yields unrelated AES keys here, and neither codec opens the other's tokens.
 */
export const KMS1_PROFILE: TokenProfile = Object.freeze({
  prefix: "kms1.",
  hkdfInfo: "roundtrip/request-state/kms1/aes-256-gcm",
  kidLabel: "roundtrip/request-state/kms1/kid:",
});

const DATA_KEY_BYTES = 32;

let tokensOf: (codec: KmsRequestStateCodec) => AeadTokens;

/**
 * AES-256-GCM tokens (`kms1.<base64url>`) under data keys that KMS unwrapped once at startup:
 * every seal and open is local, with no KMS call per token. The first data key mints, all open.
 * Build it with `createKmsRequestStateCodec`; the constructor takes already-unwrapped keys.
 */
export class KmsRequestStateCodec implements RequestStateCodec {
  readonly #tokens: AeadTokens;

  static {
    tokensOf = (codec) => codec.#tokens;
  }

  constructor(dataKeys: readonly Uint8Array[]) {
    checkDataKeys(dataKeys);
    this.#tokens = new AeadTokens(KMS1_PROFILE, new KeyRing(dataKeys, KMS1_PROFILE, "dataKeys"));
  }

  seal(payload: Uint8Array): string {
    return this.#tokens.seal(payload);
  }

  unseal(token: string): Uint8Array {
    return this.#tokens.open(token);
  }
}

function checkDataKeys(dataKeys: readonly Uint8Array[]): void {
  if (!Array.isArray(dataKeys) || dataKeys.length === 0) {
    throw new TypeError("KmsRequestStateCodec needs at least one data key; use createKmsRequestStateCodec");
  }
  dataKeys.forEach((key: unknown, index) => {
    if (!(key instanceof Uint8Array) || key.byteLength !== DATA_KEY_BYTES) {
      throw new TypeError(
        `dataKeys[${index}] is not a 32-byte AES-256 data key; mint one with roundtrip-kms-keygen (GenerateDataKey, KeySpec AES_256)`,
      );
    }
  });
}

/** Internal, for tests only (not exported by the package): fixes the nonce source. Never in production. */
export function pinNonceSource(codec: KmsRequestStateCodec, source: RandomSource): void {
  tokensOf(codec).random = source;
}
