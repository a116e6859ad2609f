import { parseBearerChallenge, parseChallenge } from "../../protocol/auth/challenge.js";
import type { AuthChallenge, ClientAuthProvider } from "../auth-provider.js";
import { authorizationCodeEndpoints, startAuthorization } from "./authorization-code.js";
import { authorizationCodeFrom } from "./authorization-response.js";
import { ChallengeBudget } from "./challenge-budget.js";
import { ClientRegistrar } from "./client-registrar.js";
import type { ClientRegistration } from "./client-registration.js";
import { DpopProofs } from "./dpop-proofs.js";
import { OAuthError } from "./errors.js";
import { requestIdentityAssertion } from "./identity-assertion.js";
import { checkOAuthClientOptions, type OAuthClientOptions } from "./oauth-client-options.js";
import type { OAuthRequestOptions } from "./oauth-library.js";
import { type ResourceContext, ResourceContexts } from "./resource-contexts.js";
import { selectScope, splitScope } from "./scope-selection.js";
import { requestToken, type TokenGrant } from "./token-request.js";
import { revokeToken } from "./token-revocation.js";
import { readTokenSource } from "./token-source.js";
import {
  memoryTokenStore,
  type StoredTokens,
  type TokenStore,
  tokensExpired,
  tokensToStore,
} from "./token-store.js";

export type OAuthClientProvider = ClientAuthProvider & {
  /**
   * Forgets every token this provider obtained or loaded, in memory and in the store, revoking them
   * first where the authorization server offers RFC 7009 revocation.
   */
  logout(): Promise<void>;
};

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
  /** What every request to an OAuth server takes from the options, and nothing else of them. */
  readonly #http: OAuthRequestOptions;
  readonly #store: TokenStore;
  readonly #now: () => number;
  readonly #contexts: ResourceContexts;
  readonly #clients: ClientRegistrar;
  readonly #budget: ChallengeBudget;
  readonly #dpop: DpopProofs | undefined;
  /** The last DPoP nonce each endpoint asked for: the same one asked for again is not retried. */
  readonly #nonces = new Map<string, string>();
  /** The access token last sent to each endpoint, to tell a stale token from a refused fresh one. */
  readonly #sent = new Map<string, string | undefined>();
  /** One challenge at a time per endpoint: concurrent refusals share one sign-in. */
  readonly #pending = new Map<string, Promise<boolean>>();

  constructor(options: OAuthClientOptions) {
    checkOAuthClientOptions(options);
    this.#options = options;
    this.#http = { fetch: options.fetch, allowInsecureHttp: options.allowInsecureHttp };
    this.#store = options.store ?? memoryTokenStore();
    this.#now = options.now ?? Date.now;
    this.#contexts = new ResourceContexts(options, this.#store);
    this.#clients = new ClientRegistrar(options, this.#store);
    this.#budget = new ChallengeBudget(options.maxStepUps ?? DEFAULT_MAX_STEP_UPS);
    this.#dpop = options.dpop ? new DpopProofs(options.dpop === true ? {} : options.dpop) : undefined;
  }

  async proof(resource: URL, method: string, authorization: string): Promise<string | undefined> {
    const token = /^DPoP (.+)$/i.exec(authorization)?.[1];
    return this.#dpop && token ? this.#dpop.proof(method, resource, token) : undefined;
  }

  async authorization(resource: URL, signal?: AbortSignal): Promise<string | undefined> {
    // Nothing is known before the server's first challenge names its metadata.
    const context = this.#contexts.get(resource);
    let tokens = context && (await this.#store.get(context.key));
    if (context && tokens && tokensExpired(tokens, this.#now()))
      tokens = await this.#renew(context, tokens, signal);
    this.#sent.set(resource.href, tokens?.accessToken);
    return tokens && authorizationHeader(tokens);
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
    await Promise.all(this.#contexts.onePerKey().map((context) => this.#revokeAndForget(context)));
    this.#contexts.clear();
    this.#sent.clear();
    this.#budget.clear();
    this.#clients.forget();
  }

  /**
   * The refresh token is revoked before the access token, so no new access token is minted in between.
   * A failed revocation does not keep the tokens.
   */
  async #revokeAndForget(context: ResourceContext): Promise<void> {
    const stored = await this.#store.get(context.key);
    if (stored) {
      const client = this.#clients.clientOf(stored, context);
      const revoke = (token: string, hint: "access_token" | "refresh_token") =>
        revokeToken(context.server, token, hint, client, this.#http);
      if (stored.refreshToken !== undefined) await revoke(stored.refreshToken, "refresh_token");
      await revoke(stored.accessToken, "access_token");
    }
    await this.#store.delete(context.key);
  }

  async #answer(challenge: AuthChallenge): Promise<boolean> {
    if (await this.#takeNonce(challenge)) return true;
    const parsed = parseBearerChallenge(challenge.wwwAuthenticate);
    const stepUp = challenge.status === 403;
    if (stepUp && parsed?.error !== "insufficient_scope") return false;
    if (!this.#budget.admits(challenge, stepUp)) return false;
    const { signal } = challenge;
    const context = await this.#contexts.discover(challenge.resource, challenge.wwwAuthenticate, signal);
    const stored = await this.#store.get(context.key);
    if (!stepUp && stored) {
      const sent = this.#sent.get(challenge.resource.href);
      // The request went out before this token was known (the first request of a run): just use it.
      if (stored.accessToken !== sent && !tokensExpired(stored, this.#now())) return true;
      if (stored.refreshToken && challenge.attempt === 1 && (await this.#renew(context, stored, signal))) {
        return true;
      }
    }
    const previous = context.requested.length > 0 ? context.requested : splitScope(stored?.scope);
    const scope =
      this.#options.scope ??
      selectScope({
        challenged: parsed?.scope,
        resourceScopes: context.metadata.scopes_supported,
        previous: stepUp ? previous : undefined,
        authorizationServerScopes: context.server.scopes_supported,
        wantsRefreshToken: this.#options.grant === "authorization_code",
      });
    await this.#obtain(context, scope, signal);
    return true;
  }

  /** A use_dpop_nonce refusal (RFC 9449 §9) is answered by the same request with the new nonce. */
  async #takeNonce(challenge: AuthChallenge): Promise<boolean> {
    const nonce = challenge.dpopNonce;
    if (!this.#dpop || nonce === undefined || challenge.status !== 401) return false;
    if (parseChallenge(challenge.wwwAuthenticate, "dpop")?.error !== "use_dpop_nonce") return false;
    const href = challenge.resource.href;
    if (this.#nonces.get(href) === nonce) return false;
    this.#nonces.set(href, nonce);
    await this.#dpop.rememberNonce(challenge.resource, nonce);
    return true;
  }

  /**
   * New tokens: asked for directly by a client_credentials client, with an assertion by the
   * identity_assertion and workload_identity grants, through the user's redirect otherwise.
   */
  async #obtain(context: ResourceContext, scope: string | undefined, signal?: AbortSignal) {
    const { server, resource } = context;
    if (this.#options.grant === "client_credentials") {
      const client = await this.#clients.clientFor(context, signal);
      const grant = { grantType: "client_credentials", scope, resource } as const;
      return this.#grant(context, client, grant, scope, signal);
    }
    if (this.#options.grant !== "authorization_code") {
      const client = await this.#clients.clientFor(context, signal);
      const assertion = await this.#assertion(context, scope, signal);
      const grant = { grantType: "jwt_bearer", assertion, scope, resource } as const;
      return this.#grant(context, client, grant, scope, signal);
    }
    // Present for this grant: checkOAuthClientOptions refuses a configuration without it.
    const redirect = this.#options.redirect!;
    const { redirectUri } = redirect;
    // Endpoints first: a server that cannot be used is not worth a client registration.
    const endpoints = authorizationCodeEndpoints(server, this.#http.allowInsecureHttp);
    const client = await this.#clients.clientFor(context, signal);
    const request = { clientId: client.clientId, redirectUri, scope, resource };
    const { url, state, codeVerifier } = await startAuthorization(endpoints.authorizationEndpoint, request);
    const callback = authorizationCodeFrom(await redirect.authorize(url, signal), {
      issuer: context.issuer,
      issRequired: server.authorization_response_iss_parameter_supported === true,
      state,
    });
    const grant = { grantType: "authorization_code", callback, redirectUri, codeVerifier, resource } as const;
    return this.#grant(context, client, grant, scope, signal);
  }

  /** The JWT the bearer grant presents: a fresh ID-JAG from the IdP, or the workload's current token. */
  async #assertion(context: ResourceContext, scope: string | undefined, signal?: AbortSignal) {
    const { identityAssertion, workloadIdentity } = this.#options;
    if (identityAssertion) {
      const target = { audience: context.issuer, resource: context.resource, scope };
      return requestIdentityAssertion(identityAssertion, target, { ...this.#http, signal });
    }
    // Present for this grant: checkOAuthClientOptions refuses a configuration without it.
    return readTokenSource(workloadIdentity!.token, "workloadIdentity.token", signal);
  }

  /**
   * A stale token renewed: refreshed, or for a grant without a user simply requested again. A
   * refresh the server refuses drops the tokens (a full authorization follows); undefined then.
   */
  async #renew(context: ResourceContext, stored: StoredTokens, signal?: AbortSignal) {
    const { refreshToken } = stored;
    if (refreshToken === undefined) {
      const { grant, scope } = this.#options;
      // Grants that need no user are simply run again.
      if (grant !== "authorization_code") return this.#obtain(context, scope ?? stored.scope, signal);
      await this.#store.delete(context.key);
      return undefined;
    }
    const client = this.#clients.clientOf(stored, context);
    const grant = { grantType: "refresh_token", refreshToken, resource: context.resource } as const;
    try {
      return await this.#grant(context, client, grant, stored.scope, signal);
    } catch (error) {
      if (!(error instanceof OAuthError && error.code === "token_request")) throw error;
      await this.#store.delete(context.key);
      return undefined;
    }
  }

  /** Runs one grant and files its tokens; the scope asked for is what a later step-up adds to. */
  async #grant(
    context: ResourceContext,
    client: ClientRegistration,
    grant: TokenGrant,
    requestedScope: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<StoredTokens> {
    const dpop = await this.#dpop?.handle;
    const tokens = await requestToken(context.server, client, grant, { ...this.#http, signal, dpop });
    // A server that does not rotate refresh tokens answers without one: the old one stays good.
    if (grant.grantType === "refresh_token") tokens.refreshToken ??= grant.refreshToken;
    const stored = tokensToStore(context, client, tokens, requestedScope, this.#now());
    await this.#store.set(context.key, stored);
    context.requested = splitScope(requestedScope);
    return stored;
  }
}

/** `Bearer` and `DPoP` in their usual spelling, whatever case the server or the store gave. */
function authorizationHeader({ tokenType, accessToken }: StoredTokens): string {
  const type = ({ bearer: "Bearer", dpop: "DPoP" } as Record<string, string>)[tokenType.toLowerCase()];
  return `${type ?? tokenType} ${accessToken}`;
}
