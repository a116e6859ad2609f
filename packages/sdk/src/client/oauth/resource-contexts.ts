import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { discoverAuthorizationServer } from "./authorization-server-discovery.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import {
  type DiscoveredResourceMetadata,
  discoverProtectedResource,
} from "./protected-resource-discovery.js";
import type { TokenKeeper } from "./token-keeper.js";
import { tokenStoreKey } from "./token-store.js";

/** What discovery established about one MCP endpoint. */
export interface ResourceContext {
  /** The protected resource metadata's `resource`, sent verbatim as the RFC 8707 resource parameter. */
  resource: string;
  metadata: DiscoveredResourceMetadata;
  issuer: string;
  server: AuthorizationServerMetadata;
  key: string;
  /** The scopes the last authorization asked for, unioned into a step-up. */
  requested: string[];
}

/**
 * The context of each MCP endpoint (by href), from its protected resource metadata (RFC 9728) and its
 * authorization server's metadata (RFC 8414), which is fetched once per issuer.
 */
export class ResourceContexts {
  readonly #options: OAuthClientOptions;
  readonly #fetch: typeof fetch;
  readonly #tokens: TokenKeeper;
  readonly #contexts = new Map<string, ResourceContext>();
  readonly #servers = new Map<string, AuthorizationServerMetadata>();

  constructor(options: OAuthClientOptions, fetchImpl: typeof fetch, tokens: TokenKeeper) {
    this.#options = options;
    this.#fetch = fetchImpl;
    this.#tokens = tokens;
  }

  get(resource: URL): ResourceContext | undefined {
    return this.#contexts.get(resource.href);
  }

  withKey(key: string): ResourceContext | undefined {
    return [...this.#contexts.values()].find((context) => context.key === key);
  }

  clear(): void {
    this.#contexts.clear();
  }

  /**
   * Discovery runs on every challenge: the resource's metadata may have moved it to another
   * authorization server, whose tokens and client registration are then the only ones used.
   */
  async discover(
    resource: URL,
    wwwAuthenticate: string | null,
    signal?: AbortSignal,
  ): Promise<ResourceContext> {
    const { allowInsecureHttp, clientId, clientMetadataUrl } = this.#options;
    const options = { fetch: this.#fetch, allowInsecureHttp, signal };
    const { metadata } = await discoverProtectedResource(resource, wwwAuthenticate, options);
    // authorization_servers is non-empty (checked by discovery); the first is the one to use.
    const issuer = metadata.authorization_servers[0] as string;
    const server = this.#servers.get(issuer) ?? (await discoverAuthorizationServer(issuer, options));
    this.#servers.set(issuer, server);
    // The configured client (a client id or metadata URL) is part of every token store key.
    const key = tokenStoreKey(issuer, metadata.resource, clientId ?? clientMetadataUrl);
    const previous = this.#contexts.get(resource.href);
    if (previous && previous.key !== key) {
      // The resource moved (another issuer, or another resource identifier): the old tokens are for a
      // different audience or authorization server and must not be presented again.
      await this.#tokens.forget(previous.key);
    }
    const context: ResourceContext = {
      resource: metadata.resource,
      metadata,
      issuer,
      server,
      key,
      requested: previous?.key === key ? previous.requested : [],
    };
    this.#contexts.set(resource.href, context);
    this.#tokens.track(key);
    return context;
  }
}
