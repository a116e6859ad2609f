import type { CacheScope } from "../protocol/schemas/common.js";
import { PaginationError } from "./errors.js";

/** How many pages `all: true` reads before giving up on a list that does not end. */
export const DEFAULT_MAX_PAGES = 100;

/** One page of tools/list, prompts/list, resources/list or resources/templates/list, as read. */
export interface Page {
  nextCursor?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}

/** The options of a walk over every page; without `all`, a list method reads one page. */
export interface PageWalk {
  /** Reads every page from `cursor` (or the first) and returns them as one result, without nextCursor. */
  all?: boolean;
  /** The most pages `all: true` reads; more fail with PaginationError. Default 100. */
  maxPages?: number;
}

/** The bound of a walk, or undefined for one page; refuses a bound that cannot be met. */
export function maxPagesOf(walk: PageWalk): number | undefined {
  if (walk.all !== true) {
    if (walk.maxPages !== undefined) {
      throw new TypeError("maxPages bounds a walk over every page: pass it with all: true");
    }
    return undefined;
  }
  const max = walk.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`maxPages is a whole number of pages from 1, not ${String(walk.maxPages)}`);
  }
  return max;
}

/**
 * Reads page after page until one has no nextCursor, and joins their `key` items in order. A cursor
 * seen before means the server's pagination loops, which would never end: it is refused, as is a
 * list longer than `maxPages`. The joined result is fresh only as long as its stalest page, and
 * private if any page is.
 */
export async function readAllPages<P extends Page, K extends keyof P>(
  method: string,
  key: K,
  readPage: (cursor: string | undefined) => Promise<P>,
  start: string | undefined,
  maxPages: number,
): Promise<P> {
  const sent = new Set<string>(start === undefined ? [] : [start]);
  const items: unknown[] = [];
  let first: P | undefined;
  let ttlMs = Number.POSITIVE_INFINITY;
  let cacheScope: CacheScope = "public";
  let cursor = start;
  for (let pages = 1; ; pages++) {
    const page = await readPage(cursor);
    first ??= page;
    items.push(...(page[key] as unknown[]));
    ttlMs = Math.min(ttlMs, page.ttlMs);
    if (page.cacheScope === "private") cacheScope = "private";
    cursor = page.nextCursor;
    if (cursor === undefined) {
      const { nextCursor: _last, ...joined } = { ...first, [key]: items, ttlMs, cacheScope };
      return joined as unknown as P;
    }
    if (sent.has(cursor)) throw new PaginationError(method, "cursor_loop", pages, maxPages);
    if (pages >= maxPages) throw new PaginationError(method, "max_pages", pages, maxPages);
    sent.add(cursor);
  }
}
