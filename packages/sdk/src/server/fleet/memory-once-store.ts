import { checkTtlMs, type OnceRecord, type OnceStore, type OnceTtl } from "./once-store.js";

export interface MemoryOnceStoreOptions {
  /** The most rounds held at once (default 100 000); when full of unexpired rounds, claims fail (closed). */
  maxEntries?: number;
  /** The current time in milliseconds (default `Date.now`); tests pin it. */
  now?: () => number;
}

interface Entry {
  /** The claiming token while pending; undefined once done. */
  token: string | undefined;
  outcome: string | undefined;
  outcomeExpires: number;
  expires: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * A OnceStore in this process's memory: right for one instance, wrong for a fleet (each instance would
 * run a replayed round once). Bounded and expiring; when every slot holds an unexpired round, a claim
 * throws, so once-handlers are refused rather than run unguarded.
 */
export class MemoryOnceStore implements OnceStore {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: MemoryOnceStoreOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(max) || max <= 0) {
      throw new RangeError(`maxEntries must be a positive integer, got ${String(max)}`);
    }
    this.#max = max;
    this.#now = options.now ?? Date.now;
  }

  /** How many rounds are held, expired ones included until the next sweep. */
  get size(): number {
    return this.#entries.size;
  }

  async claim(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtlMs(ttlMs, "claim ttl");
    if (this.#live(key)) return false;
    if (this.#entries.size >= this.#max) this.#sweep();
    if (this.#entries.size >= this.#max) {
      throw new Error(
        `MemoryOnceStore is full: ${this.#max} rounds are held until their state expires (raise maxEntries or use a shared store)`,
      );
    }
    this.#entries.set(key, { token, outcome: undefined, outcomeExpires: 0, expires: this.#now() + ttl });
    return true;
  }

  async complete(key: string, token: string, outcome: string, ttl: OnceTtl): Promise<void> {
    const entry = this.#live(key);
    if (entry?.token !== token) throw new Error("the round's claim expired or belongs to another attempt");
    const now = this.#now();
    entry.token = undefined;
    entry.outcome = outcome;
    entry.outcomeExpires = now + checkTtlMs(ttl.outcomeMs, "outcome ttl");
    entry.expires = now + checkTtlMs(ttl.consumedMs, "consumed ttl");
  }

  async release(key: string, token: string): Promise<void> {
    if (this.#live(key)?.token === token) this.#entries.delete(key);
  }

  async read(key: string): Promise<OnceRecord> {
    const entry = this.#live(key);
    if (!entry) return { status: "free" };
    if (entry.token !== undefined) return { status: "pending" };
    if (entry.outcome !== undefined && this.#now() < entry.outcomeExpires) {
      return { status: "done", outcome: entry.outcome };
    }
    return { status: "consumed" };
  }

  async ready(): Promise<boolean> {
    if (this.#entries.size >= this.#max) this.#sweep();
    return this.#entries.size < this.#max;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() < entry.expires) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (now >= entry.expires) this.#entries.delete(key);
  }
}
