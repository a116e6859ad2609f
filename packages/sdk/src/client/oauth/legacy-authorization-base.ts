import {
  type AuthorizationServerMetadata,
  findAuthorizationServerMetadata,
} from "../../protocol/auth/authorization-server-metadata.js";
import { OAuthError } from "./errors.js";
import type { OAuthRequestOptions } from "./oauth-library.js";
import type { DiscoveredResourceMetadata } from "./protected-resource-discovery.js";

/**
 * What a 2025-03-26 server that publishes no protected resource metadata stands for (its authorization
 * section, 2.3): it is its own authorization server, at its authorization base URL (its URL without the
 * path). Its RFC 8414 metadata is read there when it has some; without any, the default endpoints
 * `/authorize`, `/token` and `/register` on that origin are used. A document that is there but unusable
 * is refused, never routed around. Nothing reaches another origin than the server's own.
 */
export async function legacyAuthorizationBase(
  resource: URL,
  options: OAuthRequestOptions,
): Promise<{ metadata: DiscoveredResourceMetadata; issuer: string; server: AuthorizationServerMetadata }> {
  const issuer = resource.origin;
  const metadata: DiscoveredResourceMetadata = { resource: resource.href, authorization_servers: [issuer] };
  let server: AuthorizationServerMetadata | undefined;
  try {
    // Generous, as for any authorization server: the caller's signal still cancels it at once.
    server = await findAuthorizationServerMetadata(issuer, { ...options, timeoutMs: 30_000 });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new OAuthError("authorization_server_metadata", (error as Error).message, { cause: error });
  }
  return { metadata, issuer, server: server ?? defaultEndpoints(issuer) };
}

function defaultEndpoints(issuer: string): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    response_types_supported: ["code"],
    // 2025-03-26 makes PKCE mandatory for its clients, so its servers take S256.
    code_challenge_methods_supported: ["S256"],
  };
}
