/** What decides the scope of one authorization request. */
export interface ScopeInputs {
  /** Scopes the server's challenge named (authoritative for the operation that was refused). */
  challenged?: readonly string[];
  /** The protected resource metadata's scopes_supported. */
  resourceScopes?: readonly string[];
  /** Scopes requested before, kept on a step-up so the new token still covers what the old one did. */
  previous?: readonly string[];
  /** The authorization server's scopes_supported: offline_access is asked for only when it is listed. */
  authorizationServerScopes?: readonly string[];
  /** Whether to ask for a refresh token (authorization code clients). */
  wantsRefreshToken: boolean;
}

/**
 * The MCP scope selection strategy: the challenge's scope first, otherwise every scope the resource
 * metadata lists, otherwise no scope parameter at all; on a step-up, the union with what was requested
 * before. offline_access is added only when the authorization server lists it, since asking an
 * authorization server for a scope it does not know can fail the whole request. Undefined means
 * "send no scope parameter".
 */
export function selectScope(inputs: ScopeInputs): string | undefined {
  const base = [inputs.challenged, inputs.resourceScopes].find((scopes) => scopes && scopes.length > 0) ?? [];
  // offline_access is decided afresh below (and kept last), whatever an earlier request asked for.
  const previous = (inputs.previous ?? []).filter((scope) => scope !== "offline_access");
  const scopes = new Set<string>([...previous, ...base]);
  if (scopes.size === 0) return undefined;
  if (inputs.wantsRefreshToken && inputs.authorizationServerScopes?.includes("offline_access")) {
    scopes.add("offline_access");
  }
  return [...scopes].join(" ");
}

export function splitScope(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(/\s+/).filter((part) => part !== "");
}
