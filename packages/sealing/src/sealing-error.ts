/**
 * The `code` of every error @roundtrip/sealing raises, one per class. A code never changes once
 * released: branch on it (or on `instanceof`) rather than on a message.
 */
export type SealingErrorCode = "ERR_INVALID_REQUEST_STATE" | "ERR_REQUEST_STATE_SEAL" | "ERR_KMS_KEY";

/**
 * The base of every error this package raises, each with a stable `code` that is also a static on its
 * class (like jose's `JWTExpired.code`). `AnySealingError` is the union of the concrete classes, so
 * `switch (error.code)` narrows to the class.
 */
export abstract class SealingError extends Error {
  abstract readonly code: SealingErrorCode;
}
