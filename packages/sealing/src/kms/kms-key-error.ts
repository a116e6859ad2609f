import { SealingError } from "../sealing-error.js";
import { explainKmsFailure, type KmsFailureContext } from "./kms-failure-advice.js";

/**
 * KMS could not unwrap (or mint) a data key, so the codec refuses to start: there is no fallback key.
 * The message names the wrapped key by index and the KMS key by id, never any key material, and
 * says what to do. The AWS error is kept as `cause`.
 */
export class KmsKeyError extends SealingError {
  static readonly code = "ERR_KMS_KEY";
  readonly code = KmsKeyError.code;
  /** Index into `wrappedKeys`, when a specific wrapped key failed. */
  readonly keyIndex: number | undefined;
  /** The KMS key id or alias given by the caller, if any. */
  readonly keyId: string | undefined;
  /** The AWS error name or network error code (`AccessDeniedException`, `ECONNREFUSED`, ...). */
  readonly kmsError: string;

  constructor(
    message: string,
    fields: { keyIndex?: number; keyId?: string; kmsError: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "KmsKeyError";
    this.keyIndex = fields.keyIndex;
    this.keyId = fields.keyId;
    this.kmsError = fields.kmsError;
  }
}

/** The error for a failed `Decrypt` of `wrappedKeys[index]` at startup. */
export function unwrapFailure(error: unknown, index: number, context: Omit<KmsFailureContext, "permission">) {
  const failure = explainKmsFailure(error, { ...context, permission: "kms:Decrypt" });
  const key = context.keyId === undefined ? "" : ` (KMS key ${context.keyId})`;
  const message =
    `Cannot unwrap wrappedKeys[${index}]${key} for service "${context.service}": ${failure.cause}. ` +
    `${failure.advice} Request-state sealing does not start without every configured key.`;
  return new KmsKeyError(
    message,
    { keyIndex: index, keyId: context.keyId, kmsError: failure.cause },
    { cause: error },
  );
}

/** The error for a failed `GenerateDataKey` while minting a wrapped key. */
export function mintFailure(error: unknown, context: Omit<KmsFailureContext, "permission">) {
  const failure = explainKmsFailure(error, { ...context, permission: "kms:GenerateDataKey" });
  const message =
    `Cannot mint a wrapped data key under KMS key ${context.keyId} for service "${context.service}": ` +
    `${failure.cause}. ${failure.advice}`;
  return new KmsKeyError(message, { keyId: context.keyId, kmsError: failure.cause }, { cause: error });
}
