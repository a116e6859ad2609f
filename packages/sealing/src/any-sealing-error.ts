import type { InvalidRequestState } from "./invalid-request-state.js";
import type { KmsKeyError } from "./kms/kms-key-error.js";
import type { RequestStateSealError } from "./request-state-seal-error.js";

/**
 * Every error this package raises; `switch (error.code)` narrows it to the class. KmsKeyError comes
 * only from `@roundtrip/sealing/kms`.
 *
 * Not beside SealingError: each of these classes extends it, so a union next to their base would make
 * the base and every class import each other.
 */
export type AnySealingError = InvalidRequestState | RequestStateSealError | KmsKeyError;
