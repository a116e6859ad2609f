import * as oauth from "oauth4webapi";
import { fetchAuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { secureUrl } from "../../protocol/auth/secure-url.js";
import { type ExchangedToken, exchangeToken, TOKEN_TYPES } from "../../protocol/auth/token-exchange.js";
import { raceAbort } from "../../protocol/request-abort.js";
import type { AuthInfo } from "../auth-info.js";
import { DownstreamTokenError } from "./downstream-token-error.js";
import { TokenCache } from "./token-cache.js";

/** The authorization server that exchanges callers' tokens, and this server's credentials there. */
export interface DownstreamTokensOptions {
  /** The issuer of the callers' tokens, which performs the exchange (RFC 8693). */
  issuer: string;
  /** Default: the token_endpoint of the issuer's metadata. */
  tokenEndpoint?: string;
  /** This server's client at the authorization server, allowed to exchange for the downstreams. */
  clientId: string;
  /** Sent with client_secret_basic. */
  clientSecret: string;
  /** Most downstream tokens kept at once (default 1000); the oldest go first. */
  maxEntries?: number;
  /** A token is exchanged again this many seconds before it expires (default 30). */
  renewBeforeSeconds?: number;
  fetch?: typeof fetch;
  /** Allows http:// on hosts other than loopback (which always may use it). Never in production. */
  allowInsecureHttp?: boolean;
  /** How long one exchange (with the metadata lookup) may take, in milliseconds (default 10000). */
  timeoutMs?: number;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
}

/** The downstream API a token is for. */
export interface Downstream {
  /** RFC 8693 `audience`: the downstream's name at the authorization server. */
  audience: string;
  /** RFC 8707 `resource`, for an authorization server that names downstreams by URI. */
  resource?: string;
  scope?: string;
  /**
   * The downstream only accepts tokens bound to a key the presenter proves (DPoP). This server holds no
   * caller's key, so a DPoP-bound caller token is refused rather than exchanged for one it cannot use.
   */
  requiresBoundToken?: boolean;
}

const DEFAULT_MAX_ENTRIES = 1000;
const DEFAULT_RENEW_BEFORE_SECONDS = 30;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Tokens for downstream APIs, obtained for the caller of a tool: `await downstream.tokenFor(ctx.auth,
 * { audience })` exchanges the caller's validated token at its authorization server (RFC 8693) for one
 * with that audience, so the downstream sees the caller as the subject and this server as the actor,
 * and never the caller's own token. Kept per caller token (by its digest: a narrower or newer token of the
 * same user never gets what a broader one was given), audience and scope until shortly before it
 * expires, in a bounded cache; concurrent calls for the same one share a request, which one caller's
 * abort does not stop for the others.
 */
export class DownstreamTokens {
  readonly #options: DownstreamTokensOptions;
  readonly #now: () => number;
  readonly #cache: TokenCache<string>;
  readonly #pending = new Map<string, Promise<string>>();
  #tokenEndpoint: Promise<string> | undefined;

  constructor(options: DownstreamTokensOptions) {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!(Number.isInteger(maxEntries) && maxEntries > 0)) {
      throw new TypeError(`maxEntries must be a whole number above 0, not ${maxEntries}`);
    }
    const { timeoutMs } = options;
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
      throw new TypeError(`timeoutMs must be a whole number of milliseconds above 0, not ${timeoutMs}`);
    }
    secureUrl(options.issuer, "issuer", options.allowInsecureHttp);
    if (options.tokenEndpoint !== undefined) {
      secureUrl(options.tokenEndpoint, "tokenEndpoint", options.allowInsecureHttp);
    }
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#cache = new TokenCache(maxEntries);
  }

  /** A token for `downstream`, acting for the caller `auth` (a tool's `ctx.auth`). */
  async tokenFor(auth: AuthInfo | undefined, downstream: Downstream, signal?: AbortSignal): Promise<string> {
    if (!auth?.token) {
      throw new DownstreamTokenError(
        "no_caller_token",
        `no caller token to exchange for ${downstream.audience}: the request was not authenticated with OAuth (bearerAuth), so there is no one to act for`,
      );
    }
    if (downstream.requiresBoundToken && isDpopBound(auth)) {
      throw new DownstreamTokenError(
        "binding",
        `the caller's token is DPoP-bound and ${downstream.audience} requires a bound token: this server cannot prove possession of the caller's key, so it does not exchange the token`,
      );
    }
    // The cache keeps a digest of this key, never the caller's token itself.
    const key = JSON.stringify([
      auth.token,
      downstream.audience,
      downstream.resource ?? null,
      downstream.scope ?? null,
    ]);
    const cached = this.#cache.get(key, this.#now());
    if (cached !== undefined) return cached;
    let pending = this.#pending.get(key);
    if (!pending) {
      // Shared by every caller waiting on it: bounded by its own deadline, not by one caller's signal.
      const shared = AbortSignal.timeout(this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      pending = this.#exchange(auth, downstream, key, shared).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return raceAbort(pending, signal);
  }

  async #exchange(auth: AuthInfo, downstream: Downstream, key: string, signal: AbortSignal) {
    const { issuer, clientId, clientSecret } = this.#options;
    const tokenEndpoint = await this.#endpoint(signal);
    let exchanged: ExchangedToken;
    try {
      exchanged = await exchangeToken(
        {
          server: { issuer, token_endpoint: tokenEndpoint },
          clientId,
          clientAuthentication: oauth.ClientSecretBasic(clientSecret),
          ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
          signal,
          ...(this.#options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
        },
        {
          subjectToken: auth.token,
          subjectTokenType: TOKEN_TYPES.accessToken,
          requestedTokenType: TOKEN_TYPES.accessToken,
          audience: downstream.audience,
          ...(downstream.resource === undefined ? {} : { resource: downstream.resource }),
          ...(downstream.scope === undefined ? {} : { scope: downstream.scope }),
        },
      );
    } catch (error) {
      throw refusal(error, downstream.audience, issuer);
    }
    // Sent on as a bearer token: anything else (a DPoP-bound token, one that is not an access token,
    // token_type N_A) would be refused downstream, or worse, presented without its proof.
    if (
      exchanged.issuedTokenType !== TOKEN_TYPES.accessToken ||
      exchanged.tokenType.toLowerCase() !== "bearer"
    ) {
      throw new DownstreamTokenError(
        "authorization_server",
        `${issuer} answered the exchange for ${downstream.audience} with a ${exchanged.tokenType} token of type ${exchanged.issuedTokenType}, where a bearer access token was asked for; check the exchange settings for that audience`,
      );
    }
    const now = this.#now();
    const renewBefore = (this.#options.renewBeforeSeconds ?? DEFAULT_RENEW_BEFORE_SECONDS) * 1000;
    // Without expires_in the token is used for this call only: there is no telling when it lapses.
    if (exchanged.expiresIn !== undefined) {
      const until = now + exchanged.expiresIn * 1000 - renewBefore;
      if (until > now) this.#cache.set(key, exchanged.token, until);
    }
    return exchanged.token;
  }

  #endpoint(signal: AbortSignal): Promise<string> {
    const { tokenEndpoint, issuer, fetch, allowInsecureHttp } = this.#options;
    if (tokenEndpoint !== undefined) return Promise.resolve(tokenEndpoint);
    this.#tokenEndpoint ??= fetchAuthorizationServerMetadata(issuer, {
      ...(fetch ? { fetch } : {}),
      ...(allowInsecureHttp ? { allowInsecureHttp } : {}),
      signal,
    }).then((metadata) => {
      if (typeof metadata.token_endpoint !== "string") {
        throw new DownstreamTokenError("authorization_server", `${issuer} publishes no token_endpoint`);
      }
      return metadata.token_endpoint;
    });
    // A failed lookup is not kept: the next call asks again.
    this.#tokenEndpoint.catch(() => {
      this.#tokenEndpoint = undefined;
    });
    return this.#tokenEndpoint;
  }
}

function isDpopBound(auth: AuthInfo): boolean {
  const cnf = auth.claims?.cnf;
  return typeof cnf === "object" && cnf !== null && typeof (cnf as { jkt?: unknown }).jkt === "string";
}

function refusal(error: unknown, audience: string, issuer: string): unknown {
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description}` : "";
    return new DownstreamTokenError(
      "refused",
      `${issuer} refused to exchange the caller's token for ${audience} (HTTP ${error.status} ${error.error}${description}); check that this server's client may exchange tokens for that audience`,
      { oauthError: error.error, cause: error },
    );
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    return new DownstreamTokenError(
      "authorization_server",
      `the token exchange for ${audience} at ${issuer} failed (${error.message})`,
      { cause: error },
    );
  }
  return error;
}
