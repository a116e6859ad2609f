import { applyClientAuthentication, type ClientCredentials } from "./client-authentication.js";
import { OAuthError } from "./errors.js";

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  accessToken: string;
  tokenType: string;
  expiresIn?: number;
  refreshToken?: string;
  scope?: string;
}

export interface TokenRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * POSTs one grant to the token endpoint with the client's authentication and returns the tokens. A
 * refusal becomes an OAuthError carrying the server's error code (`invalid_grant` means the code or
 * refresh token is no longer good, `invalid_client` that the credentials are wrong).
 */
export async function requestToken(
  tokenEndpoint: URL,
  grant: Record<string, string | undefined>,
  client: ClientCredentials,
  options: TokenRequestOptions = {},
): Promise<TokenResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(grant)) if (value !== undefined) body.set(name, value);
  const headers = new Headers({
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  });
  applyClientAuthentication(client, headers, body);
  const response = await (options.fetch ?? globalThis.fetch)(tokenEndpoint, {
    method: "POST",
    headers,
    body,
    redirect: "error",
    signal: options.signal,
  });
  const document: unknown = await response.json().catch(() => undefined);
  const fields =
    typeof document === "object" && document !== null ? (document as Record<string, unknown>) : {};
  if (!response.ok || typeof fields.access_token !== "string" || fields.access_token === "") {
    const error = typeof fields.error === "string" ? fields.error : undefined;
    const description = typeof fields.error_description === "string" ? `: ${fields.error_description}` : "";
    throw new OAuthError(
      "token_request",
      `the token endpoint ${tokenEndpoint.href} refused the ${grant.grant_type ?? ""} grant (HTTP ${response.status}${error ? ` ${error}` : ", no access_token"}${description})${adviceFor(error)}`,
      error === undefined ? {} : { oauthError: error },
    );
  }
  const tokens: TokenResponse = {
    accessToken: fields.access_token,
    tokenType: typeof fields.token_type === "string" ? fields.token_type : "Bearer",
  };
  const expiresIn = Number(fields.expires_in);
  if (fields.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn > 0)
    tokens.expiresIn = expiresIn;
  if (typeof fields.refresh_token === "string" && fields.refresh_token !== "")
    tokens.refreshToken = fields.refresh_token;
  if (typeof fields.scope === "string") tokens.scope = fields.scope;
  return tokens;
}

function adviceFor(error: string | undefined): string {
  switch (error) {
    case "invalid_client":
      return "; check the client id and secret, and the token endpoint authentication method";
    case "invalid_scope":
      return "; the requested scope is not allowed for this client";
    case "invalid_target":
      return "; the authorization server does not know this MCP server as a resource";
    case "invalid_grant":
      return "; sign in again";
    default:
      return "";
  }
}
