import { importPKCS8 } from "jose";
import * as oauth from "oauth4webapi";
import { OAuthError } from "./errors.js";

/** The methods a client without a private key can use, in the order it prefers them. */
export const KEYLESS_METHODS = [
  "client_secret_basic",
  "client_secret_post",
  "client_secret_jwt",
  "none",
] as const;

export type TokenEndpointAuthMethod = (typeof KEYLESS_METHODS)[number] | "private_key_jwt";

/**
 * The private key of a pre-registered private_key_jwt client (RFC 7523 §2.2): a CryptoKey, or a
 * PKCS#8 PEM string with the JWS algorithm it signs with. The authorization server holds the public
 * half (registered, or at the client's jwks_uri); `kid` names it when the server has several.
 */
export interface ClientPrivateKey {
  key: oauth.CryptoKey | string;
  /** Required with a PEM key (ES256, RS256, PS256, EdDSA, …); a CryptoKey carries its own. */
  alg?: string;
  kid?: string;
}

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
  const method = KEYLESS_METHODS.find((candidate) => supported.includes(candidate));
  if (method) return method;
  throw new OAuthError(
    "unsupported",
    `the authorization server supports none of client_secret_basic, client_secret_post, client_secret_jwt or none at its token endpoint (it lists ${supported.join(", ")})`,
  );
}

/** Refuses a key configuration before any request: a PEM key cannot be imported without its algorithm. */
export function checkClientPrivateKey(config: ClientPrivateKey): void {
  if (typeof config.key === "string" && !config.alg) {
    throw new OAuthError(
      "configuration",
      'clientPrivateKey.key is a PEM string without alg: set alg to the JWS algorithm of the key ("ES256", "RS256", …)',
    );
  }
}

/**
 * The client's authentication for a token or revocation request, as oauth4webapi applies it (RFC 6749
 * §2.3.1 for the secret methods, RFC 7523 §2.2 for the assertion ones). A method whose material is
 * missing is refused here, before anything is sent.
 */
export function clientAuthentication(client: ClientCredentials): oauth.ClientAuth {
  switch (client.method) {
    case "client_secret_basic":
      return clientSecretBasic(requireSecret(client));
    case "client_secret_post":
      return oauth.ClientSecretPost(requireSecret(client));
    case "client_secret_jwt":
      return oauth.ClientSecretJwt(requireSecret(client));
    case "private_key_jwt": {
      const config = client.privateKey ?? missing(client, "the client's key", "set clientPrivateKey");
      // Imported when used: a PEM key becomes a CryptoKey only asynchronously, and assertions are rare.
      return async (as, c, body, headers) =>
        oauth.PrivateKeyJwt(await signingKey(config))(as, c, body, headers);
    }
    case "none":
      return oauth.None();
  }
}

function requireSecret(client: ClientCredentials): string {
  const advice = 'set clientSecret, or tokenEndpointAuthMethod "none" for a public client';
  return client.clientSecret ?? missing(client, "a client secret", advice);
}

function missing(client: ClientCredentials, what: string, advice: string): never {
  throw new OAuthError(
    "configuration",
    `token endpoint authentication ${client.method} needs ${what}: ${advice}`,
  );
}

/**
 * RFC 6749 §2.3.1: each part form-encoded, then the pair base64-encoded. Written here rather than
 * taken from oauth4webapi, which also escapes `-_.!~*'()`: servers that skip the decoding (the MCP
 * conformance suite's among them) then see `pre%2Dregistered` where the client id is `pre-registered`.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return (_as, client, _body, headers) => {
    const pair = `${formEncode(client.client_id)}:${formEncode(secret)}`;
    headers.set("authorization", `Basic ${Buffer.from(pair).toString("base64")}`);
  };
}

/** The key in the form oauth4webapi signs client assertions with. */
async function signingKey(config: ClientPrivateKey): Promise<oauth.PrivateKey> {
  if (typeof config.key !== "string") return { key: config.key, kid: config.kid };
  checkClientPrivateKey(config);
  try {
    return { key: await importPKCS8(config.key, config.alg as string), kid: config.kid };
  } catch (error) {
    throw new OAuthError(
      "configuration",
      `clientPrivateKey.key is not a PKCS#8 PEM private key for ${config.alg} (${(error as Error).message})`,
      { cause: error },
    );
  }
}
