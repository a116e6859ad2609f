import type { AuthInfo } from "../auth-info.js";

/**
 * Who a task belongs to, as sealed request state is bound: the validated token's issuer, client and
 * subject. Requests without a token share the anonymous principal, as they share everything else.
 */
export function taskPrincipal(auth: AuthInfo | undefined): string {
  if (!auth) return "anonymous";
  return JSON.stringify([auth.issuer ?? null, auth.clientId, auth.subject ?? null]);
}
