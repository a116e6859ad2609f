import * as oauth from "oauth4webapi";
import { OAuthError, type OAuthErrorCode } from "./errors.js";

/** How a request to an OAuth server travels: the caller's fetch, its cancellation, and the http:// rule. */
export interface OAuthRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Allows http:// endpoints on hosts other than loopback (which always may use http). Never in production. */
  allowInsecureHttp?: boolean;
}

/**
 * oauth4webapi's options for a request to `endpoint`. The library refuses http:// outright; Roundtrip's
 * own rule (loopback, or allowInsecureHttp) has already admitted `endpoint` through `endpointUrl`, so
 * the library's refusal is lifted for exactly the endpoints that rule let through.
 */
export function libraryOptions(endpoint: URL, options: OAuthRequestOptions = {}) {
  return {
    [oauth.customFetch]:
      options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init)),
    [oauth.allowInsecureRequests]: endpoint.protocol === "http:",
    signal: options.signal,
  };
}

/**
 * An oauth4webapi failure as an OAuthError: a refusal in the body (RFC 6749 §5.2), a WWW-Authenticate
 * challenge, or a response the library found non-conforming, summed up in words a log can hold (never
 * the request's codes or secrets). Anything else (the network, an abort) is not a refusal and comes
 * back unchanged, for the caller to rethrow.
 */
export function oauthFailure(
  error: unknown,
  code: OAuthErrorCode,
  what: (summary: string, oauthError: string | undefined) => string,
): unknown {
  let status: number | undefined;
  let refusal: { error?: string; error_description?: string };
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.WWWAuthenticateChallengeError) {
    status = error.status;
    refusal = error instanceof oauth.ResponseBodyError ? error : (error.cause[0]?.parameters ?? {});
  } else if (
    error instanceof oauth.OperationProcessingError ||
    error instanceof oauth.UnsupportedOperationError
  ) {
    if (error.cause instanceof Response) status = error.cause.status;
    refusal = { error_description: error.message };
  } else {
    return error;
  }
  const { error: oauthError, error_description: description } = refusal;
  const summary = refusalSummary(status, oauthError, description);
  return new OAuthError(code, what(summary, oauthError), { cause: error, oauthError });
}

/** `HTTP 400 invalid_grant: description`, from whichever of those parts the answer had. */
export function refusalSummary(status: number | undefined, error: unknown, description: unknown): string {
  const parts = [status === undefined ? "" : `HTTP ${status}`, typeof error === "string" ? error : ""];
  const head = parts.filter(Boolean).join(" ");
  if (typeof description !== "string" || description === "") return head;
  return head ? `${head}: ${description}` : description;
}
