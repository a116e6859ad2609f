import {
  checkTtlMs,
  type OnceLeaseRequest,
  type OnceLeaseResult,
  type OnceRecord,
  type OnceStore,
  type OnceTtl,
} from "./once-store.js";

export interface MemoryOnceStoreOptions {
  /** The most rounds held at once (default 100 000); when full of unexpired rounds, claims fail (closed). */
  maxEntries?: number;
  /** The current time in milliseconds (default `Date.now`); tests pin it. */
  now?: () => number;
}

interface Entry {
  /** The claiming token while pending; undefined once done. */
  token: string | undefined;
  /** Whether the handler was entered; a plain `claim` has no handler and counts as started. */
  started: boolean;
  /** When the lease lapses; Infinity for a plain `claim`, which has none. */
  leaseExpires: number;
  holder: string;
  attempt: number;
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
    this.#make(key, token, true, Number.POSITIVE_INFINITY, "", 1, this.#now() + ttl);
    return true;
  }

  async lease(key: string, request: OnceLeaseRequest): Promise<OnceLeaseResult> {
    const leaseMs = checkTtlMs(request.leaseMs, "lease");
    const ttl = checkTtlMs(request.ttlMs, "claim ttl");
    const now = this.#now();
    const entry = this.#live(key);
    if (entry === undefined) {
      this.#make(key, request.token, false, now + leaseMs, request.holder, 1, now + ttl);
      return { leased: true, attempt: 1 };
    }
    const record = this.#record(entry);
    if (record.status !== "orphaned" || record.started) return { leased: false, record };
    // Its lease lapsed before its handler was entered: no effect can have happened, so one more attempt.
    Object.assign(entry, { token: request.token, leaseExpires: now + leaseMs, holder: request.holder });
    entry.attempt += 1;
    return { leased: true, attempt: entry.attempt };
  }

  async start(key: string, token: string, leaseMs: number): Promise<boolean> {
    const lease = checkTtlMs(leaseMs, "lease");
    const entry = this.#live(key);
    if (entry?.token !== token) return false;
    entry.started = true;
    entry.leaseExpires = this.#now() + lease;
    return true;
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const lease = checkTtlMs(leaseMs, "lease");
    const entry = this.#live(key);
    if (entry?.token !== token) return false;
    entry.leaseExpires = this.#now() + lease;
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
    return entry ? this.#record(entry) : { status: "free" };
  }

  #record(entry: Entry): OnceRecord {
    const now = this.#now();
    const { started, holder, attempt } = entry;
    if (entry.token !== undefined) {
      if (now < entry.leaseExpires) {
        const leaseMs = Number.isFinite(entry.leaseExpires) ? entry.leaseExpires - now : 0;
        return { status: "pending", started, leaseMs, holder, attempt };
      }
      return { status: "orphaned", started, holder, attempt };
    }
    if (entry.outcome !== undefined && now < entry.outcomeExpires) {
      return { status: "done", outcome: entry.outcome };
    }
    return { status: "consumed" };
  }

  #make(
    key: string,
    token: string,
    started: boolean,
    leaseExpires: number,
    holder: string,
    attempt: number,
    expires: number,
  ): void {
    if (this.#entries.size >= this.#max) this.#sweep();
    if (this.#entries.size >= this.#max) {
      throw new Error(
        `MemoryOnceStore is full: ${this.#max} rounds are held until their state expires (raise maxEntries or use a shared store)`,
      );
    }
    const fresh = { outcome: undefined, outcomeExpires: 0 };
    this.#entries.set(key, { token, started, leaseExpires, holder, attempt, expires, ...fresh });
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
