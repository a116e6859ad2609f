import {
  type AuthorizationServerMetadata,
  fetchAuthorizationServerMetadata,
} from "../../protocol/auth/authorization-server-metadata.js";
import { OAuthError } from "./errors.js";
import type { OAuthRequestOptions } from "./oauth-library.js";

export type AuthorizationServerDiscoveryOptions = OAuthRequestOptions;

/**
 * The issuer's RFC 8414 metadata, found by the MCP order of well-known locations (RFC 8414 path
 * insertion, then OpenID Discovery inserted, then appended). The document must name exactly `issuer`;
 * one naming any other issuer is refused, and none of its endpoints is ever called.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: AuthorizationServerDiscoveryOptions = {},
): Promise<AuthorizationServerMetadata> {
  try {
    // Generous: a loaded machine or a cold authorization server is slow, and the caller's signal
    // (the MCP request's) still cancels the lookup at once.
    return await fetchAuthorizationServerMetadata(issuer, { ...options, timeoutMs: 30_000 });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const insecure = error instanceof TypeError && /must use https/.test(error.message);
    const code = insecure ? "insecure_url" : "authorization_server_metadata";
    throw new OAuthError(code, (error as Error).message, { cause: error });
  }
}
