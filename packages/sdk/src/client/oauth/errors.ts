/**
 * What went wrong, as a stable code a program can branch on. The message says what to do about it; it
 * never contains a token, a code or a client secret.
 */
export type OAuthErrorCode =
  /** No protected resource metadata, or metadata that is unusable. */
  | "resource_metadata"
  /** The metadata's `resource` is not the server that was called (RFC 9728 §3.3). */
  | "resource_mismatch"
  /** Authorization server metadata missing, malformed, or naming another issuer (RFC 8414 §3.3). */
  | "authorization_server_metadata"
  /** The authorization server cannot do what the client needs (no PKCE S256, no token endpoint, …). */
  | "unsupported"
  /** No way to obtain a client_id: nothing pre-registered, no CIMD support, no registration endpoint. */
  | "client_registration"
  /** The authorization response failed the `iss` check (RFC 9207) or the `state` check. */
  | "authorization_response"
  /** The user or the authorization server refused the authorization request. */
  | "access_denied"
  /** The token endpoint refused (RFC 6749 §5.2); `oauthError` holds its error code. */
  | "token_request"
  /** The options are incomplete or inconsistent. */
  | "configuration"
  /** An endpoint URL is not HTTPS (loopback excepted). */
  | "insecure_url";

export class OAuthError extends Error {
  override readonly name = "OAuthError";
  readonly code: OAuthErrorCode;
  /** The authorization server's own error code, when it sent one (`invalid_grant`, `access_denied`, …). */
  readonly oauthError?: string;

  constructor(code: OAuthErrorCode, message: string, options: { oauthError?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.oauthError !== undefined) this.oauthError = options.oauthError;
  }
}
