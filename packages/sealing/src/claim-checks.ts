import type { OpenedClaims } from "./claims.js";
import { rejectRequestState } from "./invalid-request-state.js";
import { principalClaimMatches } from "./principal.js";
import type { BindPrincipal, RequestStateContext } from "./request-state-context.js";
import type { RequestStateRejection } from "./request-state-rejection.js";
import { typeName } from "./type-name.js";

/** The reason a binding that returned neither a string nor null fails with, sealing or opening. */
type BindPrincipalReturned = Extract<RequestStateRejection, `bindPrincipal returned ${string}`>;

/** How far a token's `iat` may lie in the future: the clocks of a fleet are never quite in step. */
export const CLOCK_SKEW_SECONDS = 60;

/**
 * `iat` no later than now + skew, now strictly before `exp`, and the token younger than this policy's
 * `ttl`: a lowered TTL shortens the tokens already issued too, not only the next ones (a NaN anywhere
 * fails).
 */
export function checkTimes(claims: OpenedClaims, now: number, ttl: number): void {
  const { iat, exp } = claims;
  if (typeof iat !== "number" || iat > now + CLOCK_SKEW_SECONDS)
    throw rejectRequestState("minted in the future");
  if (typeof exp !== "number" || !(now < exp) || !(now - iat < ttl)) throw rejectRequestState("expired");
}

/** Symmetric: a claim without a principal, or a principal without a claim, is drift; both must match. */
export function checkPrincipal(claims: OpenedClaims, principal: string | null): void {
  if (Object.hasOwn(claims, "p") !== (principal !== null)) throw rejectRequestState("principal drift");
  if (principal !== null && !principalClaimMatches(claims.p, principal))
    throw rejectRequestState("principal");
}

/** How a failed principal binding is reported: a seal error when minting, an invalid state when verifying. */
export interface PrincipalFailure {
  threw(cause: unknown): Error;
  returned(description: BindPrincipalReturned): Error;
}

/** Runs the principal binding; a throw or a result other than a string or null fails the call. */
export function derivePrincipal(
  bind: BindPrincipal | null,
  context: RequestStateContext,
  fail: PrincipalFailure,
): string | null {
  if (bind === null) return null;
  let principal: unknown;
  try {
    principal = bind(context.identity ?? undefined, context);
  } catch (error) {
    throw fail.threw(error);
  }
  if (principal === null || typeof principal === "string") return principal;
  throw fail.returned(`bindPrincipal returned ${typeName(principal)}, expected string or null`);
}
