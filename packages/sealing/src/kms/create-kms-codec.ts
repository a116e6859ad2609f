import { KmsRequestStateCodec } from "./kms-codec.js";
import { type UnwrapDataKeysOptions, unwrapDataKeys } from "./unwrap-data-keys.js";

export type KmsRequestStateCodecOptions = UnwrapDataKeysOptions;

/**
 * Unwraps the data keys with KMS once, at startup, and returns a codec that seals and opens every
 * token locally. Rejects with a `KmsKeyError` (fail closed) if any wrapped key cannot be unwrapped.
 *
 *   const codec = await createKmsRequestStateCodec({ wrappedKeys, service: "billing" });
 *   const security = new RequestStateSecurity({ codec });
 */
export async function createKmsRequestStateCodec(
  options: KmsRequestStateCodecOptions,
): Promise<KmsRequestStateCodec> {
  const dataKeys = await unwrapDataKeys(options);
  try {
    return new KmsRequestStateCodec(dataKeys);
  } finally {
    for (const key of dataKeys) key.fill(0);
  }
}
