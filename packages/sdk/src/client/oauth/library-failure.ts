import * as oauth from "oauth4webapi";
import { OAuthError, type OAuthErrorCode } from "./errors.js";

/** What an endpoint's refusal says, in words a log can hold: never the request's codes or secrets. */
export interface Refusal {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The OAuth error code (`invalid_grant`, `use_dpop_nonce`, …), from the body or a challenge. */
  error?: string;
  /** Its error_description, or what was wrong with an answer that was not a refusal. */
  description?: string;
}

/**
 * Reads an oauth4webapi failure: a refusal in the body (RFC 6749 §5.2), a WWW-Authenticate challenge,
 * or a response the library found non-conforming. Anything else (the network, an abort) is not a
 * refusal and gives undefined, so the caller rethrows it unchanged.
 */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof oauth.ResponseBodyError) {
    return {
      status: error.status,
      error: error.error,
      ...(error.error_description ? { description: error.error_description } : {}),
    };
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const params = error.cause[0]?.parameters ?? {};
    return {
      status: error.status,
      ...(params.error ? { error: params.error } : {}),
      ...(params.error_description ? { description: params.error_description } : {}),
    };
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    const cause = error.cause;
    return {
      ...(cause instanceof Response ? { status: cause.status } : {}),
      description: error.message,
    };
  }
  return undefined;
}

/** `refusalOf` as an OAuthError, or the original error when it is not a refusal. */
export function oauthFailure(
  error: unknown,
  code: OAuthErrorCode,
  what: (refusal: Refusal, summary: string) => string,
): unknown {
  const refusal = refusalOf(error);
  if (!refusal) return error;
  const parts = [refusal.status === undefined ? undefined : `HTTP ${refusal.status}`, refusal.error].filter(
    (part) => part !== undefined,
  );
  const summary = `${parts.join(" ")}${refusal.description ? `${parts.length > 0 ? ": " : ""}${refusal.description}` : ""}`;
  return new OAuthError(code, what(refusal, summary), {
    cause: error,
    ...(refusal.error === undefined ? {} : { oauthError: refusal.error }),
  });
}
