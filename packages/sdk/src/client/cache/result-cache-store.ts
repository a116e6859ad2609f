type Awaitable<T> = T | Promise<T>;

/** A result the server said may be reused, and the time (ms since the epoch) it stops being fresh. */
export interface CachedResult {
  readonly result: Record<string, unknown>;
  readonly expiresAt: number;
}

/**
 * Where a Client keeps the results it may reuse. The default lives in the client's memory; a store
 * shared by several clients (in one process, or Redis for a fleet) lets them reuse each other's public
 * results, while private ones stay apart under keys of their own authorization context.
 */
export interface ResultCacheStore {
  get(key: string): Awaitable<CachedResult | undefined>;
  /** Keeps the entry at least until `expiresAt`, or less when the store is full. */
  set(key: string, entry: CachedResult): Awaitable<void>;
  /** Forgets every entry whose key starts with `prefix`: a list changed, or a resource was updated. */
  deletePrefix(prefix: string): Awaitable<void>;
}

export interface MemoryResultCacheStoreOptions {
  /** Entries kept at most; the oldest written goes first. Default 1000. */
  maxEntries?: number;
  /** The clock expiry is read against; tests pass their own. */
  now?: () => number;
}

const DEFAULT_MAX_ENTRIES = 1000;

/** A bounded store in this process's memory; expired entries are dropped when read. */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly #entries = new Map<string, CachedResult>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryResultCacheStoreOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`maxEntries is a whole number from 1, not ${String(options.maxEntries)}`);
    }
    this.#maxEntries = max;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedResult | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, entry: CachedResult): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  deletePrefix(prefix: string): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}
