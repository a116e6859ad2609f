import { GenerateDataKeyCommand, type GenerateDataKeyCommandOutput } from "@aws-sdk/client-kms";
import { endpointOf, type KmsClientOptions, withKmsClient } from "./kms-client.js";
import { mintFailure } from "./kms-key-error.js";

export interface GenerateWrappedDataKeyOptions extends KmsClientOptions {
  /** The KMS key to wrap under: key id, ARN, or alias (`alias/roundtrip`). */
  readonly keyId: string;
  /** The service name bound into the wrapped key (encryption context `{ service }`). */
  readonly service: string;
}

export interface WrappedDataKey {
  /** Base64 CiphertextBlob: safe to store in configuration, useless without KMS access. */
  readonly wrappedKey: string;
  /** The ARN of the KMS key that wrapped it, as KMS reports it. */
  readonly keyArn: string | undefined;
}

/**
 * Mints a new AES-256 data key for rotation (`GenerateDataKey`, KeySpec AES_256, encryption context
 * `{ service }`) and returns only its wrapped form; the plaintext copy is wiped on arrival.
 * Put the result first in `wrappedKeys` and keep the old key second until a TTL has passed.
 */
export async function generateWrappedDataKey(
  options: GenerateWrappedDataKeyOptions,
): Promise<WrappedDataKey> {
  const { keyId, service } = checkOptions(options);
  return withKmsClient(options, async (client) => {
    const command = new GenerateDataKeyCommand({
      KeyId: keyId,
      KeySpec: "AES_256",
      EncryptionContext: { service },
    });
    let response: GenerateDataKeyCommandOutput;
    try {
      response = await client.send(command);
    } catch (error) {
      throw mintFailure(error, { service, keyId, endpoint: endpointOf(options) });
    }
    response.Plaintext?.fill(0);
    if (response.CiphertextBlob === undefined) {
      throw mintFailure(new Error("KMS returned no CiphertextBlob"), {
        service,
        keyId,
        endpoint: endpointOf(options),
      });
    }
    return { wrappedKey: Buffer.from(response.CiphertextBlob).toString("base64"), keyArn: response.KeyId };
  });
}

function checkOptions(options: GenerateWrappedDataKeyOptions): { keyId: string; service: string } {
  const { keyId, service } = options;
  if (typeof keyId !== "string" || keyId === "") {
    throw new TypeError("keyId must name the KMS key to wrap under (key id, ARN or alias/...)");
  }
  if (typeof service !== "string" || service === "") {
    throw new TypeError("service must be the non-empty service name the wrapped key is for");
  }
  return { keyId, service };
}
