/**
 * A requestState that must not be honoured. `reason` is a short code for the server log only
 * (`malformed`, `unknown key`, `seal`, `expired`, ...): clients always get the one frozen wire error,
 * so a forger learns nothing about which check failed.
 *
 * Custom codecs throw it from `unseal` for anything they did not mint unmodified.
 */
export class InvalidRequestState extends Error {
  readonly reason: string;

  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = "InvalidRequestState";
    this.reason = reason;
  }
}
