import type { AuthInfo } from "./auth-info.js";

/**
 * Who a request acts for, as sealed request state is bound: the validated token's issuer, client and
 * subject. Requests without a token (stdio, or a server that authenticates nobody) are one principal.
 * What a 2025-era session, a listen stream and a task belong to.
 */
export function principalOf(auth: AuthInfo | undefined): string {
  if (!auth) return "anonymous";
  return JSON.stringify([auth.issuer ?? null, auth.clientId, auth.subject ?? null]);
}
