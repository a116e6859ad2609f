/** What a successful token request returned (RFC 6749 §5.1). */
export interface TokenResponse {
  accessToken: string;
  tokenType: string;
  expiresIn: number | undefined;
  scope: string | undefined;
  refreshToken: string | undefined;
  idToken: string | undefined;
}

/** A token request the authorization server refused (RFC 6749 §5.2). */
export class TokenRequestError extends Error {
  override readonly name = "TokenRequestError";
  readonly status: number;
  /** The OAuth error code, e.g. `invalid_target` or `invalid_scope`. */
  readonly error: string;

  constructor(status: number, error: string, description: string | undefined) {
    super(`token request refused (${status} ${error})${description ? `: ${description}` : ""}`);
    this.status = status;
    this.error = error;
  }
}

export interface ClientSecret {
  id: string;
  secret: string;
}

/** client_secret_basic: both parts form-encoded before base64, as RFC 6749 §2.3.1 says. */
export function basicAuthorization(client: ClientSecret): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(client.id)}:${encode(client.secret)}`).toString("base64")}`;
}

/** POSTs a token request; `client` authenticates with client_secret_basic, a public client sends none. */
export async function requestToken(
  endpoint: string,
  form: Record<string, string>,
  client?: ClientSecret,
): Promise<TokenResponse> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (client) headers.authorization = basicAuthorization(client);
  const response = await fetch(endpoint, { method: "POST", headers, body: new URLSearchParams(form) });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== "string") {
    const error = typeof body.error === "string" ? body.error : "invalid_response";
    const description = typeof body.error_description === "string" ? body.error_description : undefined;
    throw new TokenRequestError(response.status, error, description);
  }
  return {
    accessToken: body.access_token,
    tokenType: String(body.token_type ?? ""),
    expiresIn: typeof body.expires_in === "number" ? body.expires_in : undefined,
    scope: typeof body.scope === "string" ? body.scope : undefined,
    refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
    idToken: typeof body.id_token === "string" ? body.id_token : undefined,
  };
}
