import type { AuthInfo } from "../auth-info.js";
import { InvalidTokenError } from "./errors.js";
import { grantedScopes } from "./scopes.js";

/** The first configured audience the token's `aud` (a string or an array) names, if any. */
export function matchingAudience(aud: unknown, accepted: readonly string[]): string | undefined {
  const named = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  return accepted.find((audience) => named.includes(audience));
}

/**
 * The AuthInfo of a validated token (JWT claims or an introspection response). The principal is
 * (client, issuer, subject): `client_id` (RFC 9068) or, from issuers that use it, `azp`; `iss`; `sub`.
 */
export function authInfoFromClaims(
  token: string,
  claims: Readonly<Record<string, unknown>>,
  resource: string,
): AuthInfo {
  const clientId = stringClaim(claims.client_id) ?? stringClaim(claims.azp);
  if (clientId === undefined) {
    throw new InvalidTokenError("The access token names no client (no client_id or azp claim)");
  }
  const info: AuthInfo = { token, clientId, scopes: grantedScopes(claims), resource, claims: { ...claims } };
  const issuer = stringClaim(claims.iss);
  if (issuer !== undefined) info.issuer = issuer;
  const subject = stringClaim(claims.sub);
  if (subject !== undefined) info.subject = subject;
  if (typeof claims.exp === "number") info.expiresAt = claims.exp;
  return info;
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
