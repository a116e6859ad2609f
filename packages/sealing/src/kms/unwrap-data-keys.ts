import { DecryptCommand, type KMSClient } from "@aws-sdk/client-kms";
import { endpointOf, type KmsClientOptions, withKmsClient } from "./kms-client.js";
import { KmsKeyError, unwrapFailure } from "./kms-key-error.js";

export interface UnwrapDataKeysOptions extends KmsClientOptions {
  /** Wrapped data keys (base64 CiphertextBlob, as printed by roundtrip-kms-keygen), newest first. */
  readonly wrappedKeys: readonly string[];
  /** The service name bound into each wrapped key as KMS encryption context `{ service }`. */
  readonly service: string;
  /** The KMS key (id, ARN or alias) the keys were minted under; KMS then refuses keys from any other. */
  readonly keyId?: string;
}

const DATA_KEY_BYTES = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Asks KMS to unwrap each data key once (`Decrypt` with encryption context `{ service }`) and returns
 * the raw 32-byte keys in the same order. Use them with `createKmsRequestStateCodec`, or as the
 * built-in ring (`new RequestStateSecurity({ keys })`) in a fleet that shares keys with Python servers.
 * Any failure rejects with a `KmsKeyError`: never start with fewer keys than configured.
 */
export async function unwrapDataKeys(options: UnwrapDataKeysOptions): Promise<Uint8Array[]> {
  const blobs = checkWrappedKeys(options.wrappedKeys);
  const service = checkService(options.service);
  return withKmsClient(options, async (client) => {
    const results = await Promise.allSettled(
      blobs.map((blob) => decrypt(client, blob, service, options.keyId)),
    );
    const keys = results.map((result) => (result.status === "fulfilled" ? result.value : undefined));
    const failed = results.findIndex((result) => result.status === "rejected");
    try {
      if (failed >= 0) {
        const reason = (results[failed] as PromiseRejectedResult).reason;
        const endpoint = endpointOf(options);
        throw unwrapFailure(reason, failed, { service, keyId: options.keyId, endpoint });
      }
      return keys.map((key, index) => checkPlaintext(key, index, options.keyId));
    } catch (error) {
      for (const key of keys) key?.fill(0);
      throw error;
    }
  });
}

async function decrypt(client: KMSClient, blob: Buffer, service: string, keyId: string | undefined) {
  const command = new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: { service }, KeyId: keyId });
  const { Plaintext } = await client.send(command);
  return Plaintext;
}

function checkPlaintext(key: Uint8Array | undefined, index: number, keyId: string | undefined): Uint8Array {
  if (key === undefined || key.byteLength !== DATA_KEY_BYTES) {
    throw new KmsKeyError(
      `wrappedKeys[${index}] does not unwrap to a 32-byte AES-256 data key; mint one with roundtrip-kms-keygen`,
      { keyIndex: index, keyId, kmsError: "WrongKeyLength" },
    );
  }
  return key;
}

function checkWrappedKeys(wrappedKeys: unknown): Buffer[] {
  if (!Array.isArray(wrappedKeys) || wrappedKeys.length === 0) {
    throw new TypeError(
      "wrappedKeys must list at least one wrapped data key (base64, newest first); mint one with: roundtrip-kms-keygen --key-id <key> --service <name>",
    );
  }
  const blobs = wrappedKeys.map((wrapped: unknown, index) => {
    if (typeof wrapped !== "string" || wrapped === "" || !BASE64.test(wrapped)) {
      throw new TypeError(
        `wrappedKeys[${index}] is not a base64 wrapped data key; paste the single line printed by roundtrip-kms-keygen`,
      );
    }
    return Buffer.from(wrapped, "base64");
  });
  checkDistinct(blobs);
  return blobs;
}

function checkDistinct(blobs: readonly Buffer[]): void {
  blobs.forEach((blob, index) => {
    const earlier = blobs.findIndex((other) => other.equals(blob));
    if (earlier !== index) {
      throw new TypeError(
        `wrappedKeys[${index}] repeats wrappedKeys[${earlier}]; list each wrapped key once`,
      );
    }
  });
}

function checkService(service: unknown): string {
  if (typeof service === "string" && service !== "") return service;
  throw new TypeError(
    "service must be the non-empty name bound into the wrapped keys (KMS encryption context { service }), the one given to roundtrip-kms-keygen --service",
  );
}
