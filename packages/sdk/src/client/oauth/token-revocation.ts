import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { type ClientCredentials, clientAuthentication } from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { libraryOptions, type OAuthRequestOptions } from "./oauth-library.js";

export type RevocationOptions = OAuthRequestOptions;

/** The server's RFC 7009 revocation endpoint, if it offers one this client may send tokens to. */
export function revocationEndpointOf(
  server: AuthorizationServerMetadata,
  allowInsecureHttp: boolean,
): URL | undefined {
  if (typeof server.revocation_endpoint !== "string") return undefined;
  try {
    return endpointUrl(server.revocation_endpoint, "revocation_endpoint", allowInsecureHttp);
  } catch {
    return undefined; // an unusable endpoint is not worth a token; the tokens are forgotten all the same
  }
}

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
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  try {
    const response = await oauth.revocationRequest(
      as,
      { client_id: client.clientId },
      clientAuthentication(client),
      token,
      {
        ...libraryOptions(revocationEndpoint, { ...options, signal }),
        additionalParameters: { token_type_hint: hint },
      },
    );
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}
