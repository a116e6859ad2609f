import { OAuthError } from "./errors.js";

export type TokenEndpointAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** The client as the token endpoint sees it. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  method: TokenEndpointAuthMethod;
}

/**
 * Picks how to authenticate at the token endpoint from what the server supports. A client with a
 * secret prefers client_secret_basic (the RFC 8414 default when the server lists nothing), then
 * client_secret_post; a client without one can only be public (`none`).
 */
export function chooseTokenEndpointAuthMethod(
  supported: readonly string[] | undefined,
  hasSecret: boolean,
): TokenEndpointAuthMethod {
  if (!hasSecret) return "none";
  if (supported === undefined || supported.length === 0) return "client_secret_basic";
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  if (supported.includes("none")) return "none";
  throw new OAuthError(
    "unsupported",
    `the authorization server supports none of client_secret_basic, client_secret_post or none at its token endpoint (it lists ${supported.join(", ")})`,
  );
}

/** RFC 6749 §2.3.1: each part is form-encoded before the pair is base64-encoded. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/** Adds the client's authentication to a token (or revocation) request. */
export function applyClientAuthentication(
  client: ClientCredentials,
  headers: Headers,
  body: URLSearchParams,
): void {
  switch (client.method) {
    case "client_secret_basic": {
      const secret = requireSecret(client);
      const pair = `${formEncode(client.clientId)}:${formEncode(secret)}`;
      headers.set("authorization", `Basic ${Buffer.from(pair).toString("base64")}`);
      return;
    }
    case "client_secret_post":
      body.set("client_id", client.clientId);
      body.set("client_secret", requireSecret(client));
      return;
    case "none":
      body.set("client_id", client.clientId);
      return;
  }
}

function requireSecret(client: ClientCredentials): string {
  if (client.clientSecret === undefined) {
    throw new OAuthError(
      "configuration",
      `token endpoint authentication ${client.method} needs a client secret: set clientSecret, or tokenEndpointAuthMethod "none" for a public client`,
    );
  }
  return client.clientSecret;
}
