import { secureUrl } from "../../protocol/auth/secure-url.js";
import type { AuthInfo } from "../auth-info.js";
import { authInfoFromClaims, matchingAudience } from "./claims.js";
import { InvalidTokenError } from "./errors.js";
import { IntrospectionGate } from "./introspection-gate.js";
import { TokenCache } from "./token-cache.js";
import type { TokenVerifier } from "./token-verifier.js";

export interface IntrospectionVerifierOptions {
  /** The authorization server's RFC 7662 introspection endpoint. */
  endpoint: string | URL;
  /** This resource server's own credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** This server's canonical URI (RFC 8707 resource); the response's `aud` must name it. */
  audience: string | readonly string[];
  /** When set, the response's `iss` must equal it. */
  issuer?: string;
  /** How long an active answer is reused, never past the token's exp. Default 60 s; 0 disables caching. */
  cacheMaxSec?: number;
  /** Default 1000. */
  cacheMaxEntries?: number;
  /**
   * How long a refused token is refused again without a call, so the same bad token repeated costs
   * one call. Default 15 s; 0 disables. Keyed by a digest of the token, never the token itself.
   */
  refusalCacheSec?: number;
  /** Introspection calls in flight at once; more wait in a queue of maxQueued, beyond it 503. Defaults 8 and 64. */
  concurrency?: { maxConcurrent?: number; maxQueued?: number };
  /** Clock skew allowed on exp/nbf. Default 5 s. */
  clockToleranceSec?: number;
  /** Default 5000 ms. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Allows an http:// endpoint on a non-loopback host. Never in production. */
  allowInsecureHttp?: boolean;
}

function errorCodeOf(body: unknown): unknown {
  return typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
}

/** client_secret_basic: each part form-encoded before base64 (RFC 6749 §2.3.1). */
function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString("base64")}`;
}

/**
 * Verifies opaque (or any) access tokens by asking the authorization server (RFC 7662). Active answers
 * are cached briefly, bounded by the token's own expiry; refusals are cached for less, so a repeated
 * bad token costs one call; a failure to reach the server is never cached.
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const endpoint = secureUrl(options.endpoint, "introspection endpoint", options.allowInsecureHttp);
  const audiences = typeof options.audience === "string" ? [options.audience] : [...options.audience];
  if (audiences.length === 0) throw new TypeError("audience must name this server's canonical URI");
  const authorization = basicCredentials(options.clientId, options.clientSecret);
  const cacheMaxMs = (options.cacheMaxSec ?? 60) * 1000;
  const tolerance = options.clockToleranceSec ?? 5;
  const cache = new TokenCache<AuthInfo>(cacheMaxMs > 0 ? (options.cacheMaxEntries ?? 1000) : 0);
  const refusalMs = (options.refusalCacheSec ?? 15) * 1000;
  const refusals = new TokenCache<string>(refusalMs > 0 ? (options.cacheMaxEntries ?? 1000) : 0);
  const gate = new IntrospectionGate(
    options.concurrency?.maxConcurrent ?? 8,
    options.concurrency?.maxQueued ?? 64,
  );
  const fetchImpl = options.fetch ?? globalThis.fetch;

  const introspect = async (token: string): Promise<Record<string, unknown>> => {
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers: {
        authorization,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      redirect: "error",
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    if (!response.ok) {
      const refusal: unknown = await response.json().catch(() => undefined);
      // oidc-provider, for one, will not introspect a JWT: such a token cannot be checked here, so it is refused.
      if (response.status === 400 && errorCodeOf(refusal) === "unsupported_token_type") {
        throw new InvalidTokenError("The authorization server does not introspect this kind of token");
      }
      throw new Error(
        `token introspection at ${endpoint.href} answered ${response.status}; check this resource server's clientId and clientSecret there`,
      );
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new Error(`token introspection at ${endpoint.href} did not answer a JSON object`);
    }
    return body as Record<string, unknown>;
  };

  const judge = (token: string, claims: Record<string, unknown>): AuthInfo => {
    const now = Math.floor(Date.now() / 1000);
    if (claims.active !== true) {
      throw new InvalidTokenError("The access token is not active (expired, revoked or unknown)");
    }
    // A DPoP-bound token is an access token too; bearerAuth checks its proof against the answer's cnf.
    const tokenType = typeof claims.token_type === "string" ? claims.token_type.toLowerCase() : undefined;
    if (tokenType !== undefined && tokenType !== "bearer" && tokenType !== "dpop") {
      throw new InvalidTokenError(`The token is not an access token (token_type ${claims.token_type})`);
    }
    if (typeof claims.exp === "number" && claims.exp + tolerance <= now) {
      throw new InvalidTokenError("The access token has expired");
    }
    if (typeof claims.nbf === "number" && claims.nbf - tolerance > now) {
      throw new InvalidTokenError("The access token is not valid yet");
    }
    if (options.issuer !== undefined && claims.iss !== options.issuer) {
      throw new InvalidTokenError(
        "The access token was not issued by the authorization server this resource trusts",
      );
    }
    const resource = matchingAudience(claims.aud, audiences);
    if (resource === undefined) {
      throw new InvalidTokenError(
        "The access token was not issued for this resource (audience mismatch); request one with this server's resource indicator",
      );
    }
    return authInfoFromClaims(token, claims, resource);
  };

  return {
    async verify(token: string): Promise<AuthInfo> {
      const cached = cache.get(token, Date.now());
      if (cached) return cached;
      const refused = refusals.get(token, Date.now());
      if (refused !== undefined) throw new InvalidTokenError(refused);
      const claims = await gate.run(() => introspect(token));
      let info: AuthInfo;
      try {
        info = judge(token, claims);
      } catch (error) {
        if (error instanceof InvalidTokenError) refusals.set(token, error.message, Date.now() + refusalMs);
        throw error;
      }
      const until = Math.min(
        Date.now() + cacheMaxMs,
        typeof claims.exp === "number" ? claims.exp * 1000 : Number.POSITIVE_INFINITY,
      );
      cache.set(token, info, until);
      return info;
    },
  };
}
