import { errors } from "jose";
import { InvalidTokenError } from "./errors.js";

const CLAIM_PROBLEMS: Record<string, string> = {
  aud: "The access token was not issued for this resource (audience mismatch); request one with this server's resource indicator",
  iss: "The access token was not issued by the authorization server this resource trusts",
  nbf: "The access token is not valid yet",
  exp: "The access token has no expiry (exp claim)",
  iat: "The access token has an invalid issued-at time",
};

/**
 * Sorts a jose failure into a token to refuse (InvalidTokenError, answered 401) or a failure to check it
 * at all (key set unreachable or unusable), which is rethrown for the transport to answer 500.
 */
export function tokenErrorFrom(error: unknown, jwksUri: string): Error {
  if (!(error instanceof errors.JOSEError)) return asError(error);
  switch (error.code) {
    case "ERR_JWT_EXPIRED":
      return new InvalidTokenError("The access token has expired");
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const claim = (error as errors.JWTClaimValidationFailed).claim;
      return new InvalidTokenError(CLAIM_PROBLEMS[claim] ?? `The access token's ${claim} claim is invalid`);
    }
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return new InvalidTokenError(
        "The access token is signed with an algorithm this resource does not accept",
      );
    case "ERR_JWKS_NO_MATCHING_KEY":
      return new InvalidTokenError(
        "The access token is signed with a key the authorization server does not publish",
      );
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return new InvalidTokenError("The access token does not name its signing key unambiguously (kid)");
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return new InvalidTokenError("The access token signature is invalid");
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return new InvalidTokenError("The access token is not a well-formed signed JWT");
    default:
      return new Error(
        `could not check the access token against the key set at ${jwksUri}: ${error.message}`,
        {
          cause: error,
        },
      );
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
