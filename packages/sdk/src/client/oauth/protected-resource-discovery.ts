import { parseBearerChallenge } from "../../protocol/auth/challenge.js";
import { PROTECTED_RESOURCE_WELL_KNOWN } from "../../protocol/auth/resource-metadata.js";
import { endpointUrl } from "./endpoint-url.js";
import { OAuthError } from "./errors.js";
import type { OAuthRequestOptions } from "./oauth-library.js";
import { resourceCovers } from "./resource-match.js";

/** An RFC 9728 protected resource metadata document as a client reads it (servers may add fields). */
export interface DiscoveredResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  [field: string]: unknown;
}

export interface ProtectedResource {
  /** Where the document was found. */
  metadataUrl: string;
  metadata: DiscoveredResourceMetadata;
}

export type DiscoveryOptions = OAuthRequestOptions;

/**
 * The locations to try for `resourceUrl`'s metadata, in order (MCP authorization, RFC 9728 §3.1): the
 * `resource_metadata` of the server's challenge when it sent one on the resource's own origin, then
 * the path-inserted well-known URI, then the root one.
 *
 * A challenge naming another origin is ignored: any server could otherwise make the client GET any
 * URL it can reach (an intranet host, a loopback admin port), which is request forgery from the user's
 * machine. The well-known URIs RFC 9728 derives from the resource sit on its origin, so they pass.
 */
export function protectedResourceMetadataCandidates(
  resourceUrl: string | URL,
  wwwAuthenticate?: string | null,
): URL[] {
  const server = new URL(resourceUrl);
  const candidates: URL[] = [];
  const fromChallenge = parseBearerChallenge(wwwAuthenticate)?.resourceMetadata;
  if (fromChallenge !== undefined && URL.canParse(fromChallenge, server.href)) {
    const hinted = new URL(fromChallenge, server);
    if (hinted.origin === server.origin) candidates.push(hinted);
  }
  const path = server.pathname.replace(/\/+$/, "");
  if (path !== "") candidates.push(new URL(`${PROTECTED_RESOURCE_WELL_KNOWN}${path}`, server.origin));
  candidates.push(new URL(PROTECTED_RESOURCE_WELL_KNOWN, server.origin));
  return [...new Map(candidates.map((url) => [url.href, url] as const)).values()];
}

/**
 * Finds and validates the protected resource metadata of the MCP endpoint `resourceUrl`. The first
 * location that answers 2xx decides: a document that is malformed, names no authorization server, or
 * names a resource other than this endpoint is refused (with an OAuthError), never skipped, so a
 * hostile document cannot be routed around by answering the next location too.
 */
export async function discoverProtectedResource(
  resourceUrl: string | URL,
  wwwAuthenticate?: string | null,
  options: DiscoveryOptions = {},
): Promise<ProtectedResource> {
  const tried: string[] = [];
  const found = await findProtectedResource(resourceUrl, wwwAuthenticate, options, tried);
  if (found) return found;
  throw new OAuthError(
    "resource_metadata",
    `no protected resource metadata for ${new URL(resourceUrl).href} (tried ${tried.join(", ")}); the server must publish RFC 9728 metadata for OAuth to work, or pass an Authorization header through the transport's headers option instead`,
  );
}

/**
 * As `discoverProtectedResource`, but undefined when the server publishes no metadata at all (every
 * location answered 404 or 410): a 2025-03-26 server, which is its own authorization server. A
 * location that failed otherwise (unreachable, 5xx) still throws, so an outage never reads as absence.
 */
export async function findProtectedResource(
  resourceUrl: string | URL,
  wwwAuthenticate: string | null | undefined,
  options: DiscoveryOptions,
  tried: string[] = [],
): Promise<ProtectedResource | undefined> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let absent = true;
  for (const candidate of protectedResourceMetadataCandidates(resourceUrl, wwwAuthenticate)) {
    const url = endpointUrl(candidate.href, "protected resource metadata URL", options.allowInsecureHttp);
    let response: Response;
    try {
      response = await fetchImpl(url, { headers: { accept: "application/json" }, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      tried.push(`${url.href} (${(error as Error).message})`);
      absent = false;
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      tried.push(`${url.href} (HTTP ${response.status})`);
      if (response.status !== 404 && response.status !== 410) absent = false;
      continue;
    }
    const document: unknown = await response.json().catch(() => undefined);
    return { metadataUrl: url.href, metadata: validate(document, url.href, resourceUrl) };
  }
  if (absent) return undefined;
  throw new OAuthError(
    "resource_metadata",
    `no protected resource metadata for ${new URL(resourceUrl).href} (tried ${tried.join(", ")}); the server must publish RFC 9728 metadata for OAuth to work, or pass an Authorization header through the transport's headers option instead`,
  );
}

function validate(document: unknown, url: string, resourceUrl: string | URL): DiscoveredResourceMetadata {
  const refuse = (what: string) =>
    new OAuthError("resource_metadata", `protected resource metadata at ${url} ${what}`);
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw refuse("is not a JSON object");
  }
  const metadata = document as Record<string, unknown>;
  if (typeof metadata.resource !== "string") throw refuse('has no "resource"');
  const servers = metadata.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === "string")) {
    throw refuse("lists no authorization_servers; the server cannot be used with OAuth");
  }
  if (!resourceCovers(metadata.resource, resourceUrl)) {
    throw new OAuthError(
      "resource_mismatch",
      `protected resource metadata at ${url} is for ${JSON.stringify(metadata.resource)}, not ${new URL(resourceUrl).href}; refusing to obtain a token for another server (check the MCP server's resource configuration)`,
    );
  }
  const scopes = metadata.scopes_supported;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === "string"))) {
    throw refuse("has a malformed scopes_supported");
  }
  return metadata as DiscoveredResourceMetadata;
}
