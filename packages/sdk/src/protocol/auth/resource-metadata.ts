import { secureUrl } from "./secure-url.js";

/** An RFC 9728 protected resource metadata document, as an MCP server publishes it. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: ["header"];
  resource_name?: string;
  resource_documentation?: string;
  /** RFC 9728 §2: the JWS algorithms this server accepts on DPoP proofs (RFC 9449). */
  dpop_signing_alg_values_supported?: string[];
  /** RFC 9728 §2: true when a bearer token is refused and only DPoP-bound tokens are accepted. */
  dpop_bound_access_tokens_required?: boolean;
}

export interface ProtectedResourceMetadataOptions {
  /** This server's canonical URI, e.g. `https://mcp.example.com/mcp`: what tokens' `aud` names. */
  resource: string | URL;
  /** Issuer identifiers of the authorization servers; at least one. */
  authorizationServers: readonly (string | URL)[];
  /** The minimal set a client needs for basic use. */
  scopesSupported?: readonly string[];
  resourceName?: string;
  resourceDocumentation?: string | URL;
  /**
   * Publish when the server verifies DPoP proofs: the algorithms it accepts, and whether it requires
   * DPoP-bound tokens (clients then bind their tokens before the first request instead of after a
   * refusal).
   */
  dpop?: { signingAlgorithms: readonly string[]; boundTokensRequired: boolean };
  /** Allows http:// URLs on non-loopback hosts. Never in production. */
  allowInsecureHttp?: boolean;
}

function canonicalResource(resource: string | URL, allowInsecureHttp: boolean | undefined): string {
  const url = secureUrl(resource, "resource", allowInsecureHttp);
  if (url.hash !== "") throw new TypeError(`resource "${url.href}" must not have a fragment (RFC 8707)`);
  // The value is kept as written: it must equal, character for character, the audience tokens carry.
  return typeof resource === "string" ? resource : resource.href;
}

/** Builds the document, refusing what the MCP authorization rules forbid. */
export function protectedResourceMetadata(
  options: ProtectedResourceMetadataOptions,
): ProtectedResourceMetadata {
  const resource = canonicalResource(options.resource, options.allowInsecureHttp);
  if (options.authorizationServers.length === 0) {
    throw new TypeError("authorizationServers must name at least one authorization server issuer");
  }
  const document: ProtectedResourceMetadata = {
    resource,
    authorization_servers: options.authorizationServers.map((issuer) =>
      typeof issuer === "string" ? issuer : issuer.href,
    ),
    bearer_methods_supported: ["header"],
  };
  if (options.scopesSupported !== undefined) {
    if (options.scopesSupported.includes("offline_access")) {
      throw new TypeError(
        "scopesSupported must not list offline_access: it is the minimal set for using this server, and refresh is the client's choice",
      );
    }
    document.scopes_supported = [...options.scopesSupported];
  }
  if (options.resourceName !== undefined) document.resource_name = options.resourceName;
  if (options.resourceDocumentation !== undefined) {
    document.resource_documentation = String(options.resourceDocumentation);
  }
  if (options.dpop !== undefined) {
    document.dpop_signing_alg_values_supported = [...options.dpop.signingAlgorithms];
    document.dpop_bound_access_tokens_required = options.dpop.boundTokensRequired;
  }
  return document;
}

export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * The path-inserted metadata URL of a resource (RFC 9728 §3.1): `https://host/mcp` →
 * `https://host/.well-known/oauth-protected-resource/mcp`. Put it in challenges as `resource_metadata`.
 */
export function protectedResourceMetadataUrl(resource: string | URL): string {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, "");
  return new URL(`${PROTECTED_RESOURCE_WELL_KNOWN}${path}${url.search}`, url.origin).href;
}

/** The two paths clients try: the path-inserted one, then the root one. */
export function protectedResourceMetadataPaths(resource: string | URL): string[] {
  const inserted = new URL(protectedResourceMetadataUrl(resource)).pathname;
  return inserted === PROTECTED_RESOURCE_WELL_KNOWN ? [inserted] : [inserted, PROTECTED_RESOURCE_WELL_KNOWN];
}
