/**
 * What the HTTP client transport consults for credentials. The transport asks for the Authorization
 * header before every POST; when the server refuses (401, or 403 `insufficient_scope`), it hands the
 * challenge over and re-sends the same request if the provider says it now holds better credentials.
 * The OAuth implementation is `oauthClientProvider` in `@roundtrip/sdk/oauth-client`; anything else that can
 * produce a header (a static token, a cloud identity) fits the same contract.
 */
export interface ClientAuthProvider {
  /** The Authorization header value for a request to `resource` (the MCP endpoint), or undefined for none. */
  authorization(resource: URL, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * The server refused the request. Obtain credentials (discovery, a token request, a refresh, a
   * step-up to more scopes) and answer true to have the request sent again, false to give up: the
   * refusal then reaches the caller as an HttpStatusError.
   */
  handleChallenge(challenge: AuthChallenge): Promise<boolean>;
  /**
   * Optional: the DPoP proof (RFC 9449 §7) to send as the `DPoP` header of a `method` request to
   * `resource` that carries `authorization`, or undefined when none is due (a Bearer token). Asked for
   * every request, since each proof is good for one.
   */
  proof?(resource: URL, method: string, authorization: string): Promise<string | undefined>;
}

export interface AuthChallenge {
  /** The MCP endpoint that refused. */
  resource: URL;
  status: 401 | 403;
  /** The raw WWW-Authenticate header, if any (carries resource_metadata, scope and error). */
  wwwAuthenticate: string | null;
  /** 1 for the first refusal of this request, 2 for the refusal of its first re-send, and so on. */
  attempt: number;
  /** The `DPoP-Nonce` the server sent with its refusal (RFC 9449 §9), for the next proof to carry. */
  dpopNonce?: string;
  signal?: AbortSignal;
}
