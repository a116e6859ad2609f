import { importPKCS8 } from "jose";
import type * as oauth from "oauth4webapi";
import { OAuthError } from "./errors.js";

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

/** Refuses a key configuration before any request: a PEM key cannot be imported without its algorithm. */
export function checkClientPrivateKey(config: ClientPrivateKey): void {
  if (typeof config.key === "string" && (config.alg === undefined || config.alg === "")) {
    throw new OAuthError(
      "configuration",
      'clientPrivateKey.key is a PEM string without alg: set alg to the JWS algorithm of the key ("ES256", "RS256", …)',
    );
  }
}

/** The key in the form oauth4webapi signs client assertions with. */
export async function importClientPrivateKey(config: ClientPrivateKey): Promise<oauth.PrivateKey> {
  let key: oauth.CryptoKey;
  if (typeof config.key === "string") {
    checkClientPrivateKey(config);
    try {
      key = await importPKCS8(config.key, config.alg as string);
    } catch (error) {
      throw new OAuthError(
        "configuration",
        `clientPrivateKey.key is not a PKCS#8 PEM private key for ${config.alg} (${(error as Error).message})`,
        { cause: error },
      );
    }
  } else {
    key = config.key;
  }
  return config.kid === undefined ? { key } : { key, kid: config.kid };
}
