import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify, type RemoteJWKSetOptions } from "jose";
import { fetchAuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { secureUrl } from "../../protocol/auth/secure-url.js";
import type { AuthInfo } from "../auth-info.js";
import { authInfoFromClaims, matchingAudience } from "./claims.js";
import { InvalidTokenError } from "./errors.js";
import { tokenErrorFrom } from "./jwt-errors.js";
import type { TokenVerifier } from "./token-verifier.js";

/** Asymmetric algorithms only: a resource server holds no shared secret, and must never treat a published key as one. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = [
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "RS256",
  "RS384",
  "RS512",
  "EdDSA",
  "Ed25519",
];

export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier, compared exactly with `iss` and with its metadata. */
  issuer: string;
  /** This server's canonical URI (RFC 8707 resource); `aud` must name it. Several are accepted as a list. */
  audience: string | readonly string[];
  /** Default: `jwks_uri` from the issuer's RFC 8414 (then OpenID) metadata, fetched on first use. */
  jwksUri?: string | URL;
  /** Accepted `alg` values. Default DEFAULT_JWT_ALGORITHMS; symmetric algorithms and `none` are refused. */
  algorithms?: readonly string[];
  /** Clock skew allowed on exp/nbf/iat. Default 5 s. */
  clockToleranceSec?: number;
  /**
   * `at+jwt` (default) accepts only RFC 9068 access tokens (header typ `at+jwt`); `jwt` also accepts
   * `JWT` or no typ, for authorization servers that issue plain JWT access tokens.
   */
  requiredTyp?: "at+jwt" | "jwt";
  /** Key set caching: cooldown between refetches on an unknown kid (default 30 s), max age (10 min), timeout (5 s). */
  jwks?: { cooldownMs?: number; cacheMaxAgeMs?: number; timeoutMs?: number };
  fetch?: typeof fetch;
  /** Allows http:// issuer and key set URLs on non-loopback hosts. Never in production. */
  allowInsecureHttp?: boolean;
}

function checkedAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0) throw new TypeError("algorithms must name at least one signing algorithm");
  const refused = algorithms.filter((alg) => alg === "none" || /^HS\d+$/i.test(alg));
  if (refused.length > 0) {
    throw new TypeError(
      `algorithms ${refused.join(", ")} cannot verify access tokens against published keys; use asymmetric ones (e.g. ES256, RS256)`,
    );
  }
  return [...algorithms];
}

function typAccepted(typ: string | undefined, required: "at+jwt" | "jwt"): boolean {
  const normalized = typ?.toLowerCase().replace(/^application\//, "");
  if (normalized === "at+jwt") return true;
  return required === "jwt" && (normalized === undefined || normalized === "jwt");
}

/**
 * Verifies JWT access tokens offline (RFC 9068) with the authorization server's published keys, which
 * jose caches, refetches on an unknown kid (rate-limited by the cooldown) and so follows key rotation.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  secureUrl(options.issuer, "issuer", options.allowInsecureHttp);
  const audiences = typeof options.audience === "string" ? [options.audience] : [...options.audience];
  if (audiences.length === 0) throw new TypeError("audience must name this server's canonical URI");
  const algorithms = checkedAlgorithms(options.algorithms ?? DEFAULT_JWT_ALGORITHMS);
  const requiredTyp = options.requiredTyp ?? "at+jwt";
  const clockTolerance = options.clockToleranceSec ?? 5;

  let keys: Promise<{ uri: string; set: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  const keySet = () => {
    if (keys) return keys;
    const created = resolveJwksUri(options).then((uri) => ({
      uri: uri.href,
      set: createRemoteJWKSet(uri, jwksOptions(options)),
    }));
    // A failed discovery is retried by the next request instead of being remembered.
    created.catch(() => {
      if (keys === created) keys = undefined;
    });
    keys = created;
    return created;
  };

  return {
    async verify(token: string): Promise<AuthInfo> {
      const { uri, set } = await keySet();
      let payload: JWTPayload;
      let typ: string | undefined;
      try {
        const verified = await jwtVerify(token, set, {
          issuer: options.issuer,
          audience: audiences,
          algorithms,
          clockTolerance,
          requiredClaims: ["exp"],
        });
        payload = verified.payload;
        typ = verified.protectedHeader.typ;
      } catch (error) {
        throw tokenErrorFrom(error, uri);
      }
      // jose checks iat only against a maximum age: a token dated ahead of our clock would outlive its lifetime.
      if (typeof payload.iat === "number" && payload.iat - clockTolerance > Date.now() / 1000) {
        throw new InvalidTokenError("The access token was issued in the future (iat beyond the clock skew)");
      }
      if (!typAccepted(typ, requiredTyp)) {
        throw new InvalidTokenError(
          `The token is not an access token (typ ${typ ?? "absent"}, expected at+jwt)`,
        );
      }
      const resource = matchingAudience(payload.aud, audiences);
      if (resource === undefined)
        throw new InvalidTokenError("The access token was not issued for this resource");
      return authInfoFromClaims(token, payload, resource);
    },
  };
}

async function resolveJwksUri(options: JwtVerifierOptions): Promise<URL> {
  if (options.jwksUri !== undefined) return secureUrl(options.jwksUri, "jwksUri", options.allowInsecureHttp);
  const metadata = await fetchAuthorizationServerMetadata(options.issuer, options);
  if (typeof metadata.jwks_uri !== "string") {
    throw new Error(`the metadata of issuer "${options.issuer}" has no jwks_uri; set jwksUri explicitly`);
  }
  return secureUrl(metadata.jwks_uri, "jwks_uri", options.allowInsecureHttp);
}

function jwksOptions(options: JwtVerifierOptions): RemoteJWKSetOptions {
  const jwks = options.jwks ?? {};
  const result: RemoteJWKSetOptions = {};
  if (jwks.cooldownMs !== undefined) result.cooldownDuration = jwks.cooldownMs;
  if (jwks.cacheMaxAgeMs !== undefined) result.cacheMaxAge = jwks.cacheMaxAgeMs;
  if (jwks.timeoutMs !== undefined) result.timeoutDuration = jwks.timeoutMs;
  const fetchImpl = options.fetch;
  if (fetchImpl) result[customFetch] = (url, init) => fetchImpl(url, init);
  return result;
}
