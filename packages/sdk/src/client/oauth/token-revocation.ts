import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import type { ClientCredentials } from "./client-authentication.js";
import { libraryOptions, type OAuthRequestOptions } from "./library-options.js";
import { clientAuthentication } from "./token-endpoint-auth.js";

export type RevocationOptions = OAuthRequestOptions;

/**
 * Asks the authorization server to revoke a token (RFC 7009) at `revocationEndpoint`, which the caller
 * checked. Revocation is a courtesy at sign-out: the answer is whether the server confirmed it, and a
 * failure (unreachable, refused) is reported as false rather than thrown, since the client forgets the
 * token either way.
 */
export async function revokeToken(
  server: AuthorizationServerMetadata,
  revocationEndpoint: URL,
  token: string,
  hint: "access_token" | "refresh_token",
  client: ClientCredentials,
  options: RevocationOptions = {},
): Promise<boolean> {
  const as = { ...server, revocation_endpoint: revocationEndpoint.href } as oauth.AuthorizationServer;
  try {
    const response = await oauth.revocationRequest(
      as,
      { client_id: client.clientId },
      clientAuthentication(client),
      token,
      {
        ...libraryOptions(revocationEndpoint, {
          ...options,
          signal: options.signal ?? AbortSignal.timeout(10_000),
        }),
        additionalParameters: { token_type_hint: hint },
      },
    );
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}
