import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import type { ClientCredentials } from "./client-authentication.js";
import { OAuthError } from "./errors.js";
import { requestToken, type TokenRequestOptions, type TokenResponse } from "./token-request.js";
import type { StoredTokens } from "./token-store.js";

/**
 * New tokens for `resource` by the refresh token of `stored`, or undefined when the token endpoint
 * refuses the refresh (the grant is no longer good and a full authorization has to follow). Anything
 * else that goes wrong (the network, the client's authentication) is thrown.
 */
export async function refreshTokens(
  server: AuthorizationServerMetadata,
  stored: Pick<StoredTokens, "scope"> & { refreshToken: string },
  resource: string,
  client: ClientCredentials,
  options: TokenRequestOptions = {},
): Promise<TokenResponse | undefined> {
  let tokens: TokenResponse;
  try {
    tokens = await requestToken(
      server,
      client,
      { grantType: "refresh_token", refreshToken: stored.refreshToken, resource },
      options,
    );
  } catch (error) {
    if (error instanceof OAuthError && error.code === "token_request") return undefined;
    throw error;
  }
  // A server that does not rotate refresh tokens answers without one: the old one stays good.
  return { refreshToken: stored.refreshToken, scope: stored.scope, ...tokens };
}
