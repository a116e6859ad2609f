import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { parseBearerChallenge } from "../../protocol/auth/challenge.js";
import { secureUrl } from "../../protocol/auth/secure-url.js";
import type { AuthChallenge, ClientAuthProvider } from "../auth-provider.js";
import { authorizationCodeFrom } from "./authorization-response.js";
import { discoverAuthorizationServer } from "./authorization-server-discovery.js";
import { chooseTokenEndpointAuthMethod, type TokenEndpointAuthMethod } from "./client-authentication.js";
import { type ClientRegistration, checkClientMetadataUrl, registerClient } from "./client-registration.js";
import { endpointUrl } from "./endpoint-url.js";
import { OAuthError } from "./errors.js";
import { createPkce, randomState } from "./pkce.js";
import {
  type DiscoveredResourceMetadata,
  discoverProtectedResource,
} from "./protected-resource-discovery.js";
import { selectScope, splitScope } from "./scope-selection.js";
import { requestToken, type TokenResponse } from "./token-request.js";
import { revokeToken } from "./token-revocation.js";
import { memoryTokenStore, type StoredTokens, type TokenStore, tokenStoreKey } from "./token-store.js";

/** How the user agent reaches the authorization endpoint and comes back. */
export interface AuthorizationRedirect {
  /** Registered with the authorization server; a loopback `http://127.0.0.1:<port>/…` URL or an https one. */
  redirectUri: string;
  /**
   * Send the user agent to `url` (open a browser, or follow it in a test) and resolve with the query
   * parameters of the callback (code, state, iss, or error). The SDK creates state and PKCE, checks
   * state and iss, and exchanges the code.
   */
  authorize(url: URL, signal?: AbortSignal): Promise<URLSearchParams>;
}

export interface OAuthClientOptions {
  /** `authorization_code` acts for a user (needs `redirect`); `client_credentials` acts as the client itself. */
  grant: "client_credentials" | "authorization_code";
  /** A pre-registered client; omit both for a client metadata document or dynamic registration. */
  clientId?: string;
  clientSecret?: string;
  /** Used as client_id with authorization servers that advertise client_id_metadata_document_supported. */
  clientMetadataUrl?: string;
  /** Client metadata sent with dynamic registration (RFC 7591); merged over the defaults. */
  clientMetadata?: { client_name?: string; redirect_uris?: string[]; [field: string]: unknown };
  /** Default: chosen from the authorization server's token_endpoint_auth_methods_supported. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** Overrides scope selection (challenge scope, then the resource's scopes_supported). */
  scope?: string;
  /** Default: in memory, for the life of the process. */
  store?: TokenStore;
  /** Required for authorization_code. */
  redirect?: AuthorizationRedirect;
  fetch?: typeof fetch;
  /** How many 403 insufficient_scope step-ups one request may go through (default 2). */
  maxStepUps?: number;
  /** Allows http:// endpoints on hosts other than loopback (which always may use http). Never in production. */
  allowInsecureHttp?: boolean;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
}

export type OAuthClientProvider = ClientAuthProvider & {
  /**
   * Forgets every token this provider obtained or loaded, in memory and in the store, revoking them
   * first where the authorization server offers RFC 7009 revocation.
   */
  logout(): Promise<void>;
};

/** What discovery established about one MCP endpoint. */
interface ResourceContext {
  /** The protected resource metadata's `resource`, sent verbatim as the RFC 8707 resource parameter. */
  resource: string;
  metadata: DiscoveredResourceMetadata;
  issuer: string;
  server: AuthorizationServerMetadata;
  key: string;
  /** The scopes the last authorization asked for, unioned into a step-up. */
  requested: string[];
}

/** A token is renewed this long before it expires, so it does not lapse in flight. */
const EXPIRY_MARGIN_MS = 30_000;
const DEFAULT_MAX_STEP_UPS = 2;

/**
 * The OAuth 2.1 client of the MCP authorization spec, as a ClientAuthProvider for the HTTP transport:
 * `new Client(url, { http: { auth: oauthClientProvider({...}) } })`.
 *
 * On a 401 it discovers the server's protected resource metadata (RFC 9728) and its authorization
 * server (RFC 8414, exact issuer), identifies the client (pre-registered, client metadata document,
 * or dynamic registration), and runs the grant with PKCE and RFC 8707 `resource`; on a 403
 * insufficient_scope it asks again for the union of the scopes. Tokens are cached per issuer and
 * resource, refreshed before they expire, and dropped when the resource moves to another issuer.
 */
export function oauthClientProvider(options: OAuthClientOptions): OAuthClientProvider {
  return new OAuthClient(options);
}

class OAuthClient implements ClientAuthProvider {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #maxStepUps: number;
  /** By MCP endpoint (href). */
  readonly #contexts = new Map<string, ResourceContext>();
  /** The access token last sent to each endpoint, to tell a stale token from a refused fresh one. */
  readonly #sent = new Map<string, string | undefined>();
  readonly #servers = new Map<string, AuthorizationServerMetadata>();
  /** Dynamic registrations, by issuer: credentials are never carried to another authorization server. */
  readonly #registrations = new Map<string, ClientRegistration>();
  readonly #keys = new Set<string>();
  /** Step-ups taken by the request being retried, per endpoint (reset by a request's first refusal). */
  readonly #stepUps = new Map<string, number>();
  /** One challenge at a time per endpoint: concurrent refusals share one sign-in. */
  readonly #pending = new Map<string, Promise<boolean>>();

  constructor(options: OAuthClientOptions) {
    validateOptions(options);
    this.#options = options;
    this.#store = options.store ?? memoryTokenStore();
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#maxStepUps = options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
  }

  async authorization(resource: URL, signal?: AbortSignal): Promise<string | undefined> {
    const context = this.#contexts.get(resource.href);
    if (!context) {
      // Nothing is known before the server's first challenge names its metadata.
      this.#sent.set(resource.href, undefined);
      return undefined;
    }
    let tokens = await this.#store.get(context.key);
    if (tokens && this.#expired(tokens)) tokens = await this.#renew(context, tokens, signal);
    this.#sent.set(resource.href, tokens?.accessToken);
    return tokens ? authorizationHeader(tokens) : undefined;
  }

  async handleChallenge(challenge: AuthChallenge): Promise<boolean> {
    const href = challenge.resource.href;
    const pending = this.#pending.get(href);
    if (pending) return pending.catch(() => false);
    const attempt = this.#answer(challenge).finally(() => this.#pending.delete(href));
    this.#pending.set(href, attempt);
    return attempt;
  }

  async logout(): Promise<void> {
    await Promise.all([...this.#keys].map((key) => this.#revokeAndForget(key)));
    this.#keys.clear();
    this.#contexts.clear();
    this.#sent.clear();
    this.#stepUps.clear();
    this.#registrations.clear();
  }

  /**
   * Revokes the refresh and access tokens stored under `key` where the authorization server offers
   * RFC 7009 revocation, then deletes them; a failed revocation does not keep them.
   */
  async #revokeAndForget(key: string): Promise<void> {
    const stored = await this.#store.get(key);
    const context = [...this.#contexts.values()].find((candidate) => candidate.key === key);
    const endpoint = context?.server.revocation_endpoint;
    if (stored && context && typeof endpoint === "string") {
      let url: URL | undefined;
      try {
        url = endpointUrl(endpoint, "revocation_endpoint", this.#options.allowInsecureHttp ?? false);
      } catch {
        url = undefined; // an unusable endpoint is not worth a token; forget it all the same
      }
      if (url) {
        const client = this.#clientOf(stored, context);
        const options = { fetch: this.#fetch };
        if (stored.refreshToken !== undefined) {
          await revokeToken(url, stored.refreshToken, "refresh_token", client, options);
        }
        await revokeToken(url, stored.accessToken, "access_token", client, options);
      }
    }
    await this.#store.delete(key);
  }

  async #answer(challenge: AuthChallenge): Promise<boolean> {
    const parsed = parseBearerChallenge(challenge.wwwAuthenticate);
    const stepUp = challenge.status === 403;
    if (stepUp && parsed?.error !== "insufficient_scope") return false;
    // A server that keeps refusing fresh tokens must not send the user through sign-in forever: at most
    // one renewal of a stale token, one sign-in, and maxStepUps step-ups per request.
    const href = challenge.resource.href;
    if (challenge.attempt === 1) this.#stepUps.set(href, 0);
    if (stepUp) {
      const taken = (this.#stepUps.get(href) ?? 0) + 1;
      this.#stepUps.set(href, taken);
      if (taken > this.#maxStepUps) return false;
    } else if (challenge.attempt > 2) {
      return false;
    }
    if (challenge.attempt > this.#maxStepUps + 2) return false;
    const { signal } = challenge;
    const context = await this.#discover(challenge.resource, challenge.wwwAuthenticate, signal);
    const stored = await this.#store.get(context.key);

    if (!stepUp && stored) {
      const sent = this.#sent.get(challenge.resource.href);
      // The request went out before this token was known (the first request of a run): just use it.
      if (stored.accessToken !== sent && !this.#expired(stored)) return true;
      if (stored.refreshToken && challenge.attempt === 1 && (await this.#refresh(context, stored, signal))) {
        return true;
      }
    }

    const previous = stepUp
      ? context.requested.length > 0
        ? context.requested
        : splitScope(stored?.scope)
      : undefined;
    const scope =
      this.#options.scope ??
      selectScope({
        challenged: parsed?.scope,
        resourceScopes: context.metadata.scopes_supported,
        previous,
        authorizationServerScopes: context.server.scopes_supported,
        wantsRefreshToken: this.#options.grant === "authorization_code",
      });
    if (this.#options.grant === "client_credentials") await this.#clientCredentials(context, scope, signal);
    else await this.#authorizationCode(context, scope, signal);
    return true;
  }

  /**
   * Discovery runs on every challenge: the resource's metadata may have moved it to another
   * authorization server, whose tokens and client registration are then the only ones used.
   */
  async #discover(
    resource: URL,
    wwwAuthenticate: string | null,
    signal?: AbortSignal,
  ): Promise<ResourceContext> {
    const options = { fetch: this.#fetch, allowInsecureHttp: this.#options.allowInsecureHttp ?? false };
    const { metadata } = await discoverProtectedResource(resource, wwwAuthenticate, {
      ...options,
      ...(signal ? { signal } : {}),
    });
    // authorization_servers is non-empty (checked by discovery); the first is the one to use.
    const issuer = metadata.authorization_servers[0] as string;
    let server = this.#servers.get(issuer);
    if (!server) {
      server = await discoverAuthorizationServer(issuer, { ...options, ...(signal ? { signal } : {}) });
      this.#servers.set(issuer, server);
    }
    const key = tokenStoreKey(
      issuer,
      metadata.resource,
      this.#options.clientId ?? this.#options.clientMetadataUrl,
    );
    const previous = this.#contexts.get(resource.href);
    if (previous && previous.key !== key) {
      // The resource moved (another issuer, or another resource identifier): the old tokens are for a
      // different audience or authorization server and must not be presented again.
      await this.#store.delete(previous.key);
      this.#keys.delete(previous.key);
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
    this.#keys.add(key);
    return context;
  }

  async #clientFor(context: ResourceContext, signal?: AbortSignal): Promise<ClientRegistration> {
    const options = this.#options;
    const server = context.server;
    if (options.clientId !== undefined) {
      return {
        clientId: options.clientId,
        ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
        method:
          options.tokenEndpointAuthMethod ??
          chooseTokenEndpointAuthMethod(
            server.token_endpoint_auth_methods_supported,
            options.clientSecret !== undefined,
          ),
        source: "pre-registered",
      };
    }
    if (
      options.clientMetadataUrl !== undefined &&
      options.grant === "authorization_code" &&
      server.client_id_metadata_document_supported === true
    ) {
      return { clientId: options.clientMetadataUrl, method: "none", source: "metadata-document" };
    }
    const known = this.#registrations.get(context.issuer);
    if (known) return known;
    const stored = await this.#store.get(context.key);
    if (stored && stored.issuer === context.issuer) {
      const reused = this.#dynamicFrom(stored, server);
      this.#registrations.set(context.issuer, reused);
      return reused;
    }
    const registration = await registerClient(server, {
      grant: options.grant,
      ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
      ...(options.redirect ? { redirectUri: options.redirect.redirectUri } : {}),
      ...(options.tokenEndpointAuthMethod
        ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod }
        : {}),
      fetch: this.#fetch,
      ...(signal ? { signal } : {}),
      allowInsecureHttp: options.allowInsecureHttp ?? false,
    });
    this.#registrations.set(context.issuer, registration);
    return registration;
  }

  /** The client a stored token was issued to, for refreshing it. */
  #clientOf(stored: StoredTokens, context: ResourceContext): ClientRegistration {
    const options = this.#options;
    if (stored.clientId === options.clientId) {
      return {
        clientId: stored.clientId,
        ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
        method:
          options.tokenEndpointAuthMethod ??
          chooseTokenEndpointAuthMethod(
            context.server.token_endpoint_auth_methods_supported,
            options.clientSecret !== undefined,
          ),
        source: "pre-registered",
      };
    }
    if (stored.clientId === options.clientMetadataUrl) {
      return { clientId: stored.clientId, method: "none", source: "metadata-document" };
    }
    const known = this.#registrations.get(context.issuer);
    if (known?.clientId === stored.clientId) return known;
    return this.#dynamicFrom(stored, context.server);
  }

  #dynamicFrom(stored: StoredTokens, server: AuthorizationServerMetadata): ClientRegistration {
    return {
      clientId: stored.clientId,
      ...(stored.clientSecret === undefined ? {} : { clientSecret: stored.clientSecret }),
      method:
        this.#options.tokenEndpointAuthMethod ??
        chooseTokenEndpointAuthMethod(
          server.token_endpoint_auth_methods_supported,
          stored.clientSecret !== undefined,
        ),
      source: "dynamic",
    };
  }

  async #authorizationCode(context: ResourceContext, scope: string | undefined, signal?: AbortSignal) {
    const redirect = this.#options.redirect as AuthorizationRedirect; // checked by validateOptions
    const server = context.server;
    if (!server.code_challenge_methods_supported?.includes("S256")) {
      throw new OAuthError(
        "unsupported",
        `the authorization server ${context.issuer} does not advertise PKCE S256 (code_challenge_methods_supported); the MCP authorization spec forbids proceeding without it`,
      );
    }
    const allowInsecure = this.#options.allowInsecureHttp ?? false;
    const authorizationEndpoint = endpointUrl(
      server.authorization_endpoint,
      "authorization_endpoint",
      allowInsecure,
    );
    const tokenEndpoint = endpointUrl(server.token_endpoint, "token_endpoint", allowInsecure);
    const client = await this.#clientFor(context, signal);
    const pkce = await createPkce();
    const state = randomState();
    const url = new URL(authorizationEndpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", client.clientId);
    url.searchParams.set("redirect_uri", redirect.redirectUri);
    if (scope !== undefined) url.searchParams.set("scope", scope);
    // OpenID Connect servers grant offline_access only with an explicit consent prompt (OIDC Core §11).
    if (splitScope(scope).includes("offline_access")) url.searchParams.set("prompt", "consent");
    url.searchParams.set("state", state);
    url.searchParams.set("code_challenge", pkce.challenge);
    url.searchParams.set("code_challenge_method", pkce.method);
    url.searchParams.set("resource", context.resource);
    const params = await redirect.authorize(url, signal);
    const code = authorizationCodeFrom(params, {
      issuer: context.issuer,
      issRequired: server.authorization_response_iss_parameter_supported === true,
      state,
    });
    const tokens = await requestToken(
      tokenEndpoint,
      {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirect.redirectUri,
        code_verifier: pkce.verifier,
        resource: context.resource,
      },
      client,
      { fetch: this.#fetch, ...(signal ? { signal } : {}) },
    );
    return this.#save(context, client, tokens, scope);
  }

  async #clientCredentials(context: ResourceContext, scope: string | undefined, signal?: AbortSignal) {
    const tokenEndpoint = endpointUrl(
      context.server.token_endpoint,
      "token_endpoint",
      this.#options.allowInsecureHttp ?? false,
    );
    const client = await this.#clientFor(context, signal);
    const tokens = await requestToken(
      tokenEndpoint,
      { grant_type: "client_credentials", scope, resource: context.resource },
      client,
      { fetch: this.#fetch, ...(signal ? { signal } : {}) },
    );
    return this.#save(context, client, tokens, scope);
  }

  /** A refresh that the server refuses drops the tokens (a full authorization follows); undefined then. */
  async #refresh(context: ResourceContext, stored: StoredTokens, signal?: AbortSignal) {
    if (stored.refreshToken === undefined) return undefined;
    const client = this.#clientOf(stored, context);
    let tokens: TokenResponse;
    try {
      tokens = await requestToken(
        endpointUrl(
          context.server.token_endpoint,
          "token_endpoint",
          this.#options.allowInsecureHttp ?? false,
        ),
        { grant_type: "refresh_token", refresh_token: stored.refreshToken, resource: context.resource },
        client,
        { fetch: this.#fetch, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (!(error instanceof OAuthError && error.code === "token_request")) throw error;
      await this.#store.delete(context.key);
      return undefined;
    }
    // A server that does not rotate refresh tokens answers without one: the old one stays good.
    return this.#save(
      context,
      client,
      { refreshToken: stored.refreshToken, scope: stored.scope, ...tokens },
      stored.scope,
    );
  }

  /** An expired token: refreshed, or for a client_credentials client simply requested again. */
  async #renew(context: ResourceContext, stored: StoredTokens, signal?: AbortSignal) {
    if (stored.refreshToken !== undefined) return this.#refresh(context, stored, signal);
    if (this.#options.grant === "client_credentials") {
      return this.#clientCredentials(context, this.#options.scope ?? stored.scope, signal);
    }
    await this.#store.delete(context.key);
    return undefined;
  }

  async #save(
    context: ResourceContext,
    client: ClientRegistration,
    tokens: TokenResponse,
    requestedScope: string | undefined,
  ): Promise<StoredTokens> {
    const stored: StoredTokens = {
      issuer: context.issuer,
      resource: context.resource,
      clientId: client.clientId,
      accessToken: tokens.accessToken,
      tokenType: tokens.tokenType,
    };
    if (tokens.refreshToken !== undefined) stored.refreshToken = tokens.refreshToken;
    const scope = tokens.scope ?? requestedScope;
    if (scope !== undefined) stored.scope = scope;
    if (tokens.expiresIn !== undefined) stored.expiresAt = this.#now() + tokens.expiresIn * 1000;
    if (client.source === "dynamic" && client.clientSecret !== undefined)
      stored.clientSecret = client.clientSecret;
    await this.#store.set(context.key, stored);
    this.#keys.add(context.key);
    context.requested = splitScope(requestedScope);
    return stored;
  }

  #expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined && this.#now() >= tokens.expiresAt - EXPIRY_MARGIN_MS;
  }
}

function authorizationHeader(tokens: StoredTokens): string {
  const type = /^bearer$/i.test(tokens.tokenType) ? "Bearer" : tokens.tokenType;
  return `${type} ${tokens.accessToken}`;
}

function validateOptions(options: OAuthClientOptions): void {
  if (options.grant !== "authorization_code" && options.grant !== "client_credentials") {
    throw new OAuthError(
      "configuration",
      `grant must be "authorization_code" or "client_credentials", not ${JSON.stringify(options.grant)}`,
    );
  }
  if (options.clientSecret !== undefined && options.clientId === undefined) {
    throw new OAuthError(
      "configuration",
      "clientSecret is set without clientId: set both for a pre-registered client",
    );
  }
  if (options.clientMetadataUrl !== undefined) checkClientMetadataUrl(options.clientMetadataUrl);
  if (
    options.maxStepUps !== undefined &&
    !(Number.isInteger(options.maxStepUps) && options.maxStepUps >= 0)
  ) {
    throw new OAuthError("configuration", "maxStepUps must be a whole number, 0 or more");
  }
  if (options.grant === "authorization_code") {
    if (!options.redirect) {
      throw new OAuthError(
        "configuration",
        "the authorization_code grant needs redirect: { redirectUri, authorize(url) } to send the user to the authorization server",
      );
    }
    try {
      secureUrl(options.redirect.redirectUri, "redirectUri", options.allowInsecureHttp);
    } catch (error) {
      throw new OAuthError("configuration", (error as Error).message, { cause: error });
    }
  }
}
