/** Scopes that imply others, e.g. `{ "mcp:admin": ["mcp:tools", "mcp:deploy"] }`; followed transitively. */
export type ScopeHierarchy = Readonly<Record<string, readonly string[]>>;

/** The scopes a token grants: an RFC 8693/9068 `scope` string, or a `scp` array (or string) as some issuers send. */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === "string") return splitScopes(scope);
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === "string" && s !== "");
  if (typeof scp === "string") return splitScopes(scp);
  return [];
}

export function splitScopes(value: string): string[] {
  return value.split(" ").filter((s) => s !== "");
}

/** Everything `granted` covers once the hierarchy is applied. */
export function effectiveScopes(granted: Iterable<string>, hierarchy: ScopeHierarchy = {}): Set<string> {
  const result = new Set<string>();
  const pending = [...granted];
  for (let scope = pending.pop(); scope !== undefined; scope = pending.pop()) {
    if (result.has(scope)) continue;
    result.add(scope);
    pending.push(...ownEntry(hierarchy, scope, []));
  }
  return result;
}

/** The needed scopes the grant does not cover, in the order they were asked for. */
export function missingScopes(
  granted: Iterable<string>,
  needed: Iterable<string>,
  hierarchy: ScopeHierarchy = {},
): string[] {
  const covered = effectiveScopes(granted, hierarchy);
  return unique(needed).filter((scope) => !covered.has(scope));
}

export function unique(scopes: Iterable<string>): string[] {
  return [...new Set(scopes)];
}

/**
 * A table's own entry for a name a peer chose (a tool name, a granted scope): a plain `table[name]`
 * would answer `constructor` or `__proto__` with what every object inherits.
 */
export function ownEntry<V>(table: Readonly<Record<string, V>> | undefined, name: string, fallback: V): V {
  return table !== undefined && Object.hasOwn(table, name) ? (table[name] as V) : fallback;
}
