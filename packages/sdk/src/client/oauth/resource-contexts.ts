import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { discoverAuthorizationServer } from "./authorization-server-discovery.js";
import { legacyAuthorizationBase } from "./legacy-authorization-base.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import { type DiscoveredResourceMetadata, findProtectedResource } from "./protected-resource-discovery.js";
import { type TokenStore, tokenStoreKey } from "./token-store.js";

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
 * authorization server's metadata (RFC 8414), which is fetched once per issuer; for a server that
 * publishes no resource metadata at all, from its own origin, as 2025-03-26 authorization has it.
 */
export class ResourceContexts {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #contexts = new Map<string, ResourceContext>();
  readonly #servers = new Map<string, AuthorizationServerMetadata>();

  constructor(options: OAuthClientOptions, store: TokenStore) {
    this.#options = options;
    this.#store = store;
  }

  get(resource: URL): ResourceContext | undefined {
    return this.#contexts.get(resource.href);
  }

  /** One context for each token store key in use: every place this provider holds tokens for. */
  onePerKey(): ResourceContext[] {
    return [...new Map([...this.#contexts.values()].map((context) => [context.key, context])).values()];
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
    const { fetch, allowInsecureHttp, clientId, clientMetadataUrl } = this.#options;
    const options = { fetch, allowInsecureHttp, signal };
    const found = await findProtectedResource(resource, wwwAuthenticate, options);
    let metadata: DiscoveredResourceMetadata;
    let issuer: string;
    let server: AuthorizationServerMetadata;
    if (found) {
      metadata = found.metadata;
      // authorization_servers is non-empty (checked by discovery); the first is the one to use.
      issuer = metadata.authorization_servers[0] as string;
      server = this.#servers.get(issuer) ?? (await discoverAuthorizationServer(issuer, options));
      this.#servers.set(issuer, server);
    } else {
      // No metadata anywhere: a 2025-03-26 server, its own authorization server.
      ({ metadata, issuer, server } = await legacyAuthorizationBase(resource, options));
    }
    // The configured client (a client id or metadata URL) is part of every token store key.
    const key = tokenStoreKey(issuer, metadata.resource, clientId ?? clientMetadataUrl);
    const previous = this.#contexts.get(resource.href);
    if (previous && previous.key !== key) {
      // The resource moved (another issuer, or another resource identifier): the old tokens are for a
      // different audience or authorization server and must not be presented again.
      await this.#store.delete(previous.key);
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
    return context;
  }
}
