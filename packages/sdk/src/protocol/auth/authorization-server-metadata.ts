import * as oauth from "oauth4webapi";
import { secureUrl } from "./secure-url.js";

/**
 * The fields of RFC 8414 / OpenID Discovery metadata that Roundtrip reads: the resource server's (keys,
 * introspection) and the OAuth client's (endpoints and what the server supports). Servers publish more.
 */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  /** RFC 9207: the server puts `iss` in every authorization response. */
  authorization_response_iss_parameter_supported?: boolean;
  /** The server accepts an HTTPS URL as client_id and fetches the client's metadata from it. */
  client_id_metadata_document_supported?: boolean;
  [field: string]: unknown;
}

export interface MetadataFetchOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  allowInsecureHttp?: boolean;
  /** Aborts the lookup (a client's request being cancelled). */
  signal?: AbortSignal;
}

/**
 * Where an issuer's metadata may live, in the order MCP clients try them: RFC 8414 path insertion, then
 * OpenID Discovery with path insertion, then OpenID Discovery appended to the issuer path.
 */
export function metadataUrls(issuer: string | URL): URL[] {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/+$/, "");
  const at = (wellKnown: string) => new URL(`${wellKnown}${path}`, base.origin);
  if (path === "") {
    return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  }
  return [
    at("/.well-known/oauth-authorization-server"),
    at("/.well-known/openid-configuration"),
    new URL(`${path}/.well-known/openid-configuration`, base.origin),
  ];
}

/**
 * Fetches the issuer's metadata, each answer read by oauth4webapi's processDiscoveryResponse (its
 * discoveryRequest knows only two of the three MCP locations). The document must name exactly the
 * configured issuer (RFC 8414 §3.3): anything else is a misconfiguration or an impersonation, and is
 * refused rather than skipped.
 */
export async function fetchAuthorizationServerMetadata(
  issuer: string,
  options: MetadataFetchOptions = {},
): Promise<AuthorizationServerMetadata> {
  const tried: string[] = [];
  const metadata = await findAuthorizationServerMetadata(issuer, options, tried);
  if (metadata) return metadata;
  throw new Error(
    `no authorization server metadata for issuer "${issuer}" (tried ${tried.join(", ")}); check the issuer URL or configure the endpoint explicitly`,
  );
}

/**
 * As `fetchAuthorizationServerMetadata`, but undefined when no location has a document (each answered
 * 404 or 410); `tried` collects what each location answered. A document that is there but unusable,
 * or names another issuer, still throws: it is never routed around.
 */
export async function findAuthorizationServerMetadata(
  issuer: string,
  options: MetadataFetchOptions = {},
  tried: string[] = [],
): Promise<AuthorizationServerMetadata | undefined> {
  secureUrl(issuer, "issuer", options.allowInsecureHttp);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let absent = true;
  for (const url of metadataUrls(issuer)) {
    const response = await fetchImpl(url, {
      headers: { accept: "application/json" },
      redirect: "error",
      signal: withTimeout(options.signal, options.timeoutMs ?? 5000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      tried.push(`${url.href} (${response.status})`);
      if (response.status !== 404 && response.status !== 410) absent = false;
      continue;
    }
    let metadata: oauth.AuthorizationServer;
    try {
      metadata = await oauth.processDiscoveryResponse(new URL(issuer), response);
    } catch (error) {
      const named = (error as { cause?: { body?: { issuer?: unknown } } }).cause?.body?.issuer;
      if (error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        throw issuerMismatch(url, named, issuer);
      }
      throw new Error(
        `authorization server metadata at ${url.href} is unusable: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    // oauth4webapi compares the issuer after URL normalization; RFC 8414 §3.3 wants it identical.
    if (metadata.issuer !== issuer) throw issuerMismatch(url, metadata.issuer, issuer);
    return metadata as AuthorizationServerMetadata;
  }
  if (absent) return undefined;
  throw new Error(
    `no authorization server metadata for issuer "${issuer}" (tried ${tried.join(", ")}); check the issuer URL or configure the endpoint explicitly`,
  );
}

function issuerMismatch(url: URL, named: unknown, issuer: string): Error {
  return new Error(
    `authorization server metadata at ${url.href} names issuer ${JSON.stringify(named)}, not "${issuer}"; configure the issuer exactly as the authorization server publishes it`,
  );
}

function withTimeout(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}
