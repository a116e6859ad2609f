import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { type ClientCredentials, clientAuthentication } from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { libraryOptions, type OAuthRequestOptions } from "./oauth-library.js";

export type RevocationOptions = OAuthRequestOptions;

/**
 * Asks the authorization server to revoke a token (RFC 7009). Revocation is a courtesy at sign-out: the
 * answer is whether the server confirmed it. A server without a usable revocation_endpoint, or a failure
 * (unreachable, refused), is reported as false rather than thrown, since the client forgets the token
 * either way.
 */
export async function revokeToken(
  server: AuthorizationServerMetadata,
  token: string,
  hint: "access_token" | "refresh_token",
  client: ClientCredentials,
  options: RevocationOptions = {},
): Promise<boolean> {
  const as = server as oauth.AuthorizationServer;
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  try {
    const endpoint = endpointUrl(as.revocation_endpoint, "revocation_endpoint", options.allowInsecureHttp);
    const parameters = { token_type_hint: hint };
    const http = { ...libraryOptions(endpoint, { ...options, signal }), additionalParameters: parameters };
    const auth = clientAuthentication(client);
    const response = await oauth.revocationRequest(as, { client_id: client.clientId }, auth, token, http);
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}
