import { argumentsDigest, EMPTY_ARGUMENTS_DIGEST } from "./args-digest.js";
import type { OpenedClaims } from "./claims.js";
import type { RequestStateRequest } from "./request-state-context.js";

/** The arguments digest a request binds: resources/read binds only its URI, so it digests `{}`. */
export function requestDigest(request: RequestStateRequest): string {
  return request.method === "resources/read" ? EMPTY_ARGUMENTS_DIGEST : argumentsDigest(request.arguments);
}

/** True when the claims were minted for this method, target and arguments. */
export function bindingMatches(claims: OpenedClaims, request: RequestStateRequest): boolean {
  const { method, target } = request;
  if (typeof method !== "string" || typeof target !== "string") return false;
  const digest = digestOrNull(request);
  return digest !== null && claims.m === method && claims.t === target && claims.a === digest;
}

/** Arguments that cannot be digested never came off the wire: fail closed like any other mismatch. */
function digestOrNull(request: RequestStateRequest): string | null {
  try {
    return requestDigest(request);
  } catch {
    return null;
  }
}
