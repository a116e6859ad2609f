import * as oauth from "oauth4webapi";
import type { ClientCredentials } from "./client-authentication.js";
import { importClientPrivateKey } from "./client-private-key.js";
import { OAuthError } from "./errors.js";

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
      const config = client.privateKey;
      if (config === undefined) {
        throw new OAuthError(
          "configuration",
          "token endpoint authentication private_key_jwt needs the client's key: set clientPrivateKey",
        );
      }
      // Imported when used: a PEM key becomes a CryptoKey only asynchronously, and assertions are rare.
      return async (as, c, body, headers) =>
        oauth.PrivateKeyJwt(await importClientPrivateKey(config))(as, c, body, headers);
    }
    case "none":
      return oauth.None();
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
