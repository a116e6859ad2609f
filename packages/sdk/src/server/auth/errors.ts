import { SdkError } from "../../protocol/sdk-error.js";

/**
 * A bearer token this resource server must not accept: malformed, badly signed, expired, from another
 * issuer, or for another audience. The bearer hook answers it with 401 `error="invalid_token"`; the
 * message becomes `error_description`, so it says what is wrong without echoing the token.
 */
export class InvalidTokenError extends SdkError {
  static readonly code = "ERR_INVALID_TOKEN";
  override readonly name: string = "InvalidTokenError";
  readonly code = InvalidTokenError.code;
}

/**
 * A DPoP proof (RFC 9449) this resource server must not accept: missing, malformed, signed by a key the
 * token is not bound to, made for another request, stale, or replayed. Answered 401 with a
 * `DPoP error="invalid_dpop_proof"` challenge; the message becomes `error_description`. It keeps the
 * `ERR_INVALID_TOKEN` code: to a program both mean the credentials were refused.
 */
export class InvalidDpopProofError extends InvalidTokenError {
  override readonly name: string = "InvalidDpopProofError";
}

/**
 * A proof without a current server nonce (RFC 9449 §9): answered 401 `DPoP error="use_dpop_nonce"` with
 * the nonce to use in a `DPoP-Nonce` header, which a DPoP client retries with.
 */
export class DpopNonceError extends InvalidDpopProofError {
  override readonly name = "DpopNonceError";
  readonly nonce: string;

  constructor(message: string, nonce: string) {
    super(message);
    this.nonce = nonce;
  }
}
