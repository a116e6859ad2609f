import type { ClientPrivateKey } from "./client-private-key.js";
import { OAuthError } from "./errors.js";

export type TokenEndpointAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none"
  | "private_key_jwt"
  | "client_secret_jwt";

/** The client as the token endpoint sees it. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  /** The key a private_key_jwt client signs its assertions with (RFC 7523). */
  privateKey?: ClientPrivateKey;
  method: TokenEndpointAuthMethod;
}

/**
 * Picks how to authenticate at the token endpoint from what the server supports. A client with a
 * secret prefers client_secret_basic (the RFC 8414 default when the server lists nothing), then
 * client_secret_post, then client_secret_jwt; a client without one can only be public (`none`).
 */
export function chooseTokenEndpointAuthMethod(
  supported: readonly string[] | undefined,
  hasSecret: boolean,
): TokenEndpointAuthMethod {
  if (!hasSecret) return "none";
  if (supported === undefined || supported.length === 0) return "client_secret_basic";
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  if (supported.includes("client_secret_jwt")) return "client_secret_jwt";
  if (supported.includes("none")) return "none";
  throw new OAuthError(
    "unsupported",
    `the authorization server supports none of client_secret_basic, client_secret_post, client_secret_jwt or none at its token endpoint (it lists ${supported.join(", ")})`,
  );
}
