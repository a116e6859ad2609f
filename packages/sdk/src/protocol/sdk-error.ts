/**
 * What went wrong with the OAuth client, as a stable code a program can branch on (`OAuthError.code`).
 * These predate the `ERR_*` codes of the other SDK errors and keep their spelling; they are not RFC 6749
 * error strings (the authorization server's own, such as `invalid_grant`, is `OAuthError.oauthError`).
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
  /** The resource names an authorization server other than the one the pre-registered client belongs to. */
  | "client_issuer"
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

/**
 * The `code` of every error the SDK raises on its own, one per class (OAuthError has one per failure).
 * A code never changes once released: branch on it rather than on a message. The catalogue lives here,
 * in the bottom layer, because both sides' errors extend SdkError.
 */
export type SdkErrorCode =
  // client
  | "ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED"
  | "ERR_INPUT_REQUIRED_NOT_ALLOWED"
  | "ERR_INPUT_REQUEST_UNSUPPORTED"
  | "ERR_INPUT_CALLBACK"
  | "ERR_PROTOCOL_VIOLATION"
  | "ERR_TOOL_REJECTED"
  | "ERR_VERSION_NEGOTIATION"
  | "ERR_HTTP_STATUS"
  | "ERR_CONNECTION_FAILED"
  | "ERR_RESPONSE_STREAM_CLOSED"
  | "ERR_SESSION_EXPIRED"
  | "ERR_RESPONSE_TOO_LARGE"
  | "ERR_REDIRECT_REFUSED"
  | "ERR_REQUEST_TIMEOUT"
  | "ERR_STRUCTURED_CONTENT"
  | "ERR_PAGINATION"
  | "ERR_SKILL_INTEGRITY"
  | "ERR_SUBSCRIPTION_LOST"
  | "ERR_TASK_CANCELLED"
  | OAuthErrorCode
  // server
  | "ERR_INVALID_TOKEN"
  | "ERR_DOWNSTREAM_TOKEN"
  | "ERR_INPUT_RESPONSE"
  | "ERR_TOOL_FAILED"
  /** Internal: an HTTP refusal the server transport answers itself; never thrown to a caller. */
  | "ERR_HTTP_REFUSED"
  /** Internal: a resolver failure the tool answers with as an error result; never thrown to a caller. */
  | "ERR_RESOLVER_FAILURE";

/**
 * The base of every error the SDK raises on its own, client and server side, each with a stable `code`
 * (also a static on the class, like jose's `JWTExpired.code`). `@roundtrip/sdk` exports the union of the
 * concrete classes as `AnySdkError`, so `switch (error.code)` narrows to the class.
 *
 * `McpError` is deliberately not one of them: its `code` is the numeric JSON-RPC code a peer sent (an
 * open set of integers, the wire fact), which cannot also be an `SdkErrorCode`, and it is a peer's
 * answer rather than a local refusal.
 */
export abstract class SdkError extends Error {
  abstract readonly code: SdkErrorCode;
}
