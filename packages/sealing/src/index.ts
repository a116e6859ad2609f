export { AesGcmRequestStateCodec } from "./aes-gcm-codec.js";
export type { AnySealingError } from "./any-sealing-error.js";
export { argumentsDigest, EMPTY_ARGUMENTS_DIGEST } from "./args-digest.js";
export { sortedKeysJson } from "./canonical-json.js";
export { CLOCK_SKEW_SECONDS } from "./claim-checks.js";
export type { RequestStateClaims } from "./claims.js";
export { InvalidRequestState } from "./invalid-request-state.js";
export {
  INVALID_REQUEST_STATE_ERROR,
  type InvalidRequestStateErrorBody,
} from "./invalid-request-state-error.js";
export { weakSecretReason } from "./key-strength.js";
export { KEYGEN_HINT, MIN_KEY_BYTES, type RequestStateKey } from "./keys.js";
export {
  DEFAULT_TTL_SECONDS,
  type EphemeralRequestStateSecurityOptions,
  type RequestStateSecurityOptions,
} from "./policy-options.js";
export { authenticatedPrincipal, type RequestIdentity } from "./principal.js";
export type { RequestStateCodec } from "./request-state-codec.js";
export {
  type BindPrincipal,
  type OpenedRequestState,
  type RequestStateContext,
  type RequestStateRequest,
  TRAIL_MAX_LENGTH,
} from "./request-state-context.js";
export {
  isRequestStateRejection,
  REQUEST_STATE_REJECTIONS,
  type RequestStateRejection,
} from "./request-state-rejection.js";
export { RequestStateSealError } from "./request-state-seal-error.js";
export { RequestStateSecurity } from "./request-state-security.js";
export { openValue, sealValue } from "./sealed-value.js";
export { SealingError, type SealingErrorCode } from "./sealing-error.js";
