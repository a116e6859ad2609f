import * as oauth from "oauth4webapi";
import { OAuthError, type OAuthErrorCode } from "./errors.js";

/** How a request to the authorization server travels: the caller's fetch, and its cancellation. */
export interface OAuthRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
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
  const head = [status === undefined ? "" : `HTTP ${status}`, oauthError ?? ""].filter(Boolean).join(" ");
  const summary = description ? (head ? `${head}: ${description}` : description) : head;
  return new OAuthError(code, what(summary, oauthError), { cause: error, oauthError });
}
