import { RoundtripError } from "../../protocol/roundtrip-error.js";

/**
 * A bearer token this resource server must not accept: malformed, badly signed, expired, from another
 * issuer, or for another audience. The bearer hook answers it with 401 `error="invalid_token"`; the
 * message becomes `error_description`, so it says what is wrong without echoing the token.
 */
export class InvalidTokenError extends RoundtripError {
  static readonly code = "ERR_INVALID_TOKEN";
  override readonly name = "InvalidTokenError";
  readonly code = InvalidTokenError.code;
}
