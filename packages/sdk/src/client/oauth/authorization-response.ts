import { OAuthError } from "./errors.js";

export interface ExpectedAuthorizationResponse {
  /** The issuer recorded before the redirect: the one whose metadata gave the authorization endpoint. */
  issuer: string;
  /** Whether that metadata set authorization_response_iss_parameter_supported. */
  issRequired: boolean;
  state: string;
}

/**
 * The RFC 9207 mix-up check on its own, for a redirect endpoint that finds its pending request by
 * `state` before it can check anything else. `iss` is compared as an exact string, as RFC 9207 §2.4
 * requires: a value that equals the issuer only after URL normalization (a trailing slash, case, a
 * default port) is refused.
 */
export function checkResponseIssuer(
  params: URLSearchParams,
  expected: Pick<ExpectedAuthorizationResponse, "issuer" | "issRequired">,
): void {
  const iss = params.get("iss");
  if (iss !== null) {
    if (iss !== expected.issuer) {
      throw new OAuthError(
        "authorization_response",
        `the authorization response names issuer ${JSON.stringify(iss)}, but the request went to ${JSON.stringify(expected.issuer)}; refusing it (RFC 9207 mix-up protection). Start the sign-in again`,
      );
    }
  } else if (expected.issRequired) {
    throw new OAuthError(
      "authorization_response",
      `the authorization response has no iss parameter although ${expected.issuer} advertises authorization_response_iss_parameter_supported; refusing it (RFC 9207). Start the sign-in again`,
    );
  }
}

/**
 * Checks the parameters the redirect delivered and returns the authorization code. The `iss` check
 * comes first and covers error responses too: a response from another issuer (a mix-up attack) is not
 * acted on at all.
 */
export function authorizationCodeFrom(
  params: URLSearchParams,
  expected: ExpectedAuthorizationResponse,
): string {
  checkResponseIssuer(params, expected);
  if (params.get("state") !== expected.state) {
    throw new OAuthError(
      "authorization_response",
      "the authorization response's state does not match the request (a stale or forged redirect); start the sign-in again",
    );
  }
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    throw new OAuthError(
      "access_denied",
      `the authorization server refused the authorization request: ${error}${description ? ` (${description})` : ""}`,
      { oauthError: error },
    );
  }
  const code = params.get("code");
  if (code === null || code === "") {
    throw new OAuthError(
      "authorization_response",
      "the authorization response carries neither a code nor an error",
    );
  }
  return code;
}
