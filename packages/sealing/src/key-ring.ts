import { createHash, createSecretKey, hkdfSync, type KeyObject } from "node:crypto";

/** Everything that distinguishes one token format from another built on the same AES-256-GCM core. */
export interface TokenProfile {
  /** Versioned token prefix; also the start of the AAD, so a re-prefixed token fails the tag. */
  readonly prefix: string;
  /** HKDF info string: a secret used by two formats yields unrelated AES keys. */
  readonly hkdfInfo: string;
  /** Label hashed with the AES key into the key id. */
  readonly kidLabel: string;
}

export const KID_BYTES = 4;
const AES_KEY_BYTES = 32;

/** One ring member, ready to use: derivation runs once here, never per token. */
export interface RingKey {
  /** Non-secret key id carried in every token, for O(1) lookup on open. */
  readonly kid: Buffer;
  readonly key: KeyObject;
  /** prefix || kid: binds both under the tag, so neither can be swapped onto another token. */
  readonly aad: Buffer;
}

/** HKDF-SHA256 (no salt) of a secret, and its key id. Exported for the derivation vectors. */
export function deriveKey(secret: Uint8Array, profile: TokenProfile): { aesKey: Buffer; kid: Buffer } {
  const aesKey = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), profile.hkdfInfo, AES_KEY_BYTES));
  const kid = createHash("sha256").update(profile.kidLabel).update(aesKey).digest().subarray(0, KID_BYTES);
  return { aesKey, kid };
}

/** Secrets in order of preference: the first mints, every one opens (key rotation). */
export class KeyRing {
  readonly minting: RingKey;
  readonly #byKid = new Map<number, RingKey>();

  /** `label` names the list in errors (`keys`, `wrappedKeys`). */
  constructor(secrets: readonly Uint8Array[], profile: TokenProfile, label: string) {
    secrets.forEach((secret, index) => {
      const { aesKey, kid } = deriveKey(secret, profile);
      const id = kid.readUInt32BE(0);
      if (this.#byKid.has(id)) {
        throw new Error(
          `${label}[${index}] duplicates an earlier ring key; list each secret once, newest first`,
        );
      }
      const aad = Buffer.concat([Buffer.from(profile.prefix, "ascii"), kid]);
      this.#byKid.set(id, { kid, key: createSecretKey(aesKey), aad });
      aesKey.fill(0);
    });
    const first = this.#byKid.values().next();
    if (first.done) throw new Error(`${label} must hold at least one key`);
    this.minting = first.value;
  }

  find(kid: number): RingKey | undefined {
    return this.#byKid.get(kid);
  }
}
