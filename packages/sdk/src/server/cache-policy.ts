import { isCacheable } from "../protocol/methods.js";
import type { CacheScope } from "../protocol/schemas/common.js";
import type { ResultObject } from "./middleware.js";

export interface CachePolicy {
  ttlMs: number;
  cacheScope: CacheScope;
}

/**
 * A cacheable method's result with `ttlMs` and `cacheScope` always present: its own, else the server's
 * configured defaults, else uncached and private, so a client never guesses.
 */
export function withCachePolicy(
  method: string,
  result: ResultObject,
  configured: Partial<CachePolicy> | undefined,
): ResultObject {
  if (!isCacheable(method)) return result;
  return {
    ...result,
    ttlMs: result.ttlMs ?? configured?.ttlMs ?? 0,
    cacheScope: result.cacheScope ?? configured?.cacheScope ?? "private",
  };
}
