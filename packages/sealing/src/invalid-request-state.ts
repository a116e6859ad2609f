import type { RequestStateRejection } from "./request-state-rejection.js";
import { SealingError } from "./sealing-error.js";

/**
 * A requestState that must not be honoured. `reason` is a short code for the server log only
 * (`malformed`, `unknown key`, `seal`, `expired`, ...): clients always get the one frozen wire error,
 * so a forger learns nothing about which check failed.
 *
 * The policy and the built-in codecs always give a RequestStateRejection; a custom codec throws it from
 * `unseal`, with a short reason of its own, for anything it did not mint unmodified.
 */
export class InvalidRequestState extends SealingError {
  static readonly code = "ERR_INVALID_REQUEST_STATE";
  readonly code = InvalidRequestState.code;
  // `string & {}` admits a custom codec's reason while keeping the known ones suggested and named.
  readonly reason: RequestStateRejection | (string & {});

  constructor(reason: RequestStateRejection | (string & {}), options?: ErrorOptions) {
    super(reason, options);
    this.name = "InvalidRequestState";
    this.reason = reason;
  }
}

/** The package's own refusals: the reason is checked against RequestStateRejection at compile time. */
export function rejectRequestState(
  reason: RequestStateRejection,
  options?: ErrorOptions,
): InvalidRequestState {
  return new InvalidRequestState(reason, options);
}
