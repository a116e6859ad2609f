import type { CachePolicy } from "../cache-policy.js";

/**
 * How long a client may reuse a result (`ttlMs`) and whether clients with other credentials may share
 * it (`cacheScope`). What a hint leaves out comes from the server-wide `cache` option.
 */
export type CacheHint = Partial<CachePolicy>;

/** Checks a registration's `cache` option, so a bad hint fails at registration, not on the wire. */
export function checkCacheHint(value: unknown, what: string): CacheHint | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`${what}: cache must be an object such as { ttlMs: 60000, cacheScope: "public" }`);
  }
  const { ttlMs, cacheScope } = value as Record<string, unknown>;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0)) {
    throw new TypeError(`${what}: cache.ttlMs must be a whole number of milliseconds, 0 or more`);
  }
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") {
    throw new TypeError(`${what}: cache.cacheScope must be "public" or "private"`);
  }
  const hint: CacheHint = {};
  if (ttlMs !== undefined) hint.ttlMs = ttlMs as number;
  if (cacheScope !== undefined) hint.cacheScope = cacheScope;
  return Object.freeze(hint);
}

/** The result with the hint's fields; the low-level server fills in the rest from its own `cache`. */
export function withCacheHint<T extends Record<string, unknown>>(result: T, hint: CacheHint | undefined): T {
  return hint === undefined ? result : { ...result, ...hint };
}

/**
 * The hint for a list of entries: a client may keep it no longer than its least fresh entry, and may
 * share it only if every entry may be shared. Entries without a hint count at the server-wide policy;
 * when none has one, the list has none either and the server-wide policy applies unchanged.
 */
export function listCacheHint(
  hints: readonly (CacheHint | undefined)[],
  serverWide: CacheHint | undefined,
): CacheHint | undefined {
  if (hints.every((hint) => hint === undefined)) return undefined;
  let ttlMs = Number.POSITIVE_INFINITY;
  let shared = true;
  for (const hint of hints) {
    ttlMs = Math.min(ttlMs, hint?.ttlMs ?? serverWide?.ttlMs ?? 0);
    shared &&= (hint?.cacheScope ?? serverWide?.cacheScope ?? "private") === "public";
  }
  return { ttlMs, cacheScope: shared ? "public" : "private" };
}
