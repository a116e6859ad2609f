import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import type { ClientCredentials } from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { type RevocationOptions, revokeToken } from "./token-revocation.js";
import type { StoredTokens } from "./token-store.js";

/** The server's RFC 7009 revocation endpoint, if it offers one this client may send tokens to. */
export function revocationEndpointOf(
  server: AuthorizationServerMetadata,
  allowInsecureHttp: boolean,
): URL | undefined {
  const endpoint = server.revocation_endpoint;
  if (typeof endpoint !== "string") return undefined;
  try {
    return endpointUrl(endpoint, "revocation_endpoint", allowInsecureHttp);
  } catch {
    return undefined; // an unusable endpoint is not worth a token; the tokens are forgotten all the same
  }
}

/** Revokes the refresh token before the access token, so no new access token is minted in between. */
export async function revokeStoredTokens(
  server: AuthorizationServerMetadata,
  revocationEndpoint: URL,
  stored: StoredTokens,
  client: ClientCredentials,
  options: RevocationOptions = {},
): Promise<void> {
  if (stored.refreshToken !== undefined) {
    await revokeToken(server, revocationEndpoint, stored.refreshToken, "refresh_token", client, options);
  }
  await revokeToken(server, revocationEndpoint, stored.accessToken, "access_token", client, options);
}
