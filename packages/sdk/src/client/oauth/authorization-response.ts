import * as oauth from "oauth4webapi";
import { OAuthError } from "./errors.js";

export interface ExpectedAuthorizationResponse {
  /** The issuer recorded before the redirect: the one whose metadata gave the authorization endpoint. */
  issuer: string;
  /** Whether that metadata set authorization_response_iss_parameter_supported. */
  issRequired: boolean;
  state: string;
}

/** validateAuthResponse reads nothing of the client; it only insists on being given one. */
const ANY_CLIENT: oauth.Client = { client_id: "roundtrip" };

/** oauth4webapi's validateAuthResponse, with its refusal of `iss` (the first thing it checks) explained. */
function validate(
  params: URLSearchParams,
  expected: Pick<ExpectedAuthorizationResponse, "issuer" | "issRequired">,
  state: string | typeof oauth.skipStateCheck,
): URLSearchParams {
  const { issuer, issRequired } = expected;
  try {
    const as = { issuer, authorization_response_iss_parameter_supported: issRequired };
    return oauth.validateAuthResponse(as, ANY_CLIENT, params, state);
  } catch (error) {
    if (!(error instanceof oauth.OperationProcessingError && error.message.includes('"iss"'))) throw error;
    const iss = params.get("iss");
    throw new OAuthError(
      "authorization_response",
      iss === null
        ? `the authorization response has no iss parameter although ${issuer} advertises authorization_response_iss_parameter_supported; refusing it (RFC 9207). Start the sign-in again`
        : `the authorization response names issuer ${JSON.stringify(iss)}, but the request went to ${JSON.stringify(issuer)}; refusing it (RFC 9207 mix-up protection). Start the sign-in again`,
    );
  }
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
  try {
    validate(params, expected, oauth.skipStateCheck);
  } catch (error) {
    if (error instanceof OAuthError) throw error; // anything else is for authorizationCodeFrom to judge
  }
}

/**
 * Checks the parameters the redirect delivered (oauth4webapi's validateAuthResponse: `iss`, then
 * `state`, then an error response) and returns them validated, for the code's redemption. The `iss`
 * check comes first and covers error responses too: a response from another issuer (a mix-up attack)
 * is not acted on at all.
 */
export function authorizationCodeFrom(
  params: URLSearchParams,
  expected: ExpectedAuthorizationResponse,
): URLSearchParams {
  let callback: URLSearchParams;
  try {
    callback = validate(params, expected, expected.state);
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    if (error instanceof oauth.AuthorizationResponseError) {
      const description = error.error_description;
      throw new OAuthError(
        "access_denied",
        `the authorization server refused the authorization request: ${error.error}${description ? ` (${description})` : ""}`,
        { oauthError: error.error, cause: error },
      );
    }
    const stateRefused = error instanceof oauth.OperationProcessingError && error.message.includes('"state"');
    throw new OAuthError(
      "authorization_response",
      stateRefused
        ? "the authorization response's state does not match the request (a stale or forged redirect); start the sign-in again"
        : `the authorization response is unusable (${(error as Error).message}); start the sign-in again`,
      { cause: error },
    );
  }
  if (!callback.get("code")) {
    throw new OAuthError(
      "authorization_response",
      "the authorization response carries neither a code nor an error",
    );
  }
  return callback;
}
