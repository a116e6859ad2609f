/**
 * Where approvals are kept: one opaque record per release (and its deployment record under
 * `<release>/deployment`), sealed before it gets here (see
 * SealedApprovalStore), so a ledger holds ciphertext only and cannot read what it keeps. Each change
 * is a compare-and-swap on the whole record, which makes every step atomic on any instance of a
 * fleet without the ledger knowing what the record says.
 */
export interface ApprovalLedger {
  /**
   * Keeps `record` for `ttlMs` unless the release already has one. Resolves to the record it already
   * had, or to undefined when this call stored `record`.
   */
  add(release: string, record: string, ttlMs: number): Promise<string | undefined>;
  /** The release's record; undefined when there is none or it expired. */
  get(release: string): Promise<string | undefined>;
  /** Replaces the release's record with `next`, keeping its expiry, if it is still `expected`. */
  swap(release: string, expected: string, next: string): Promise<boolean>;
}

export interface MemoryApprovalLedgerOptions {
  /** The current time in milliseconds (default `Date.now`); tests pin it. */
  now?: () => number;
}

/** One process's approvals, each forgotten when its TTL runs out; a fleet needs a shared ledger. */
export class MemoryApprovalLedger implements ApprovalLedger {
  readonly #records = new Map<string, { record: string; expiresAt: number }>();
  readonly #now: () => number;

  constructor(options: MemoryApprovalLedgerOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async add(release: string, record: string, ttlMs: number): Promise<string | undefined> {
    this.#prune();
    const existing = this.#records.get(release);
    if (existing) return existing.record;
    this.#records.set(release, { record, expiresAt: this.#now() + ttlMs });
    return undefined;
  }

  async get(release: string): Promise<string | undefined> {
    return this.#live(release)?.record;
  }

  async swap(release: string, expected: string, next: string): Promise<boolean> {
    const entry = this.#live(release);
    if (entry?.record !== expected) return false;
    entry.record = next;
    return true;
  }

  #live(release: string): { record: string; expiresAt: number } | undefined {
    const entry = this.#records.get(release);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#records.delete(release);
      return undefined;
    }
    return entry;
  }

  #prune(): void {
    const now = this.#now();
    for (const [release, entry] of this.#records) if (entry.expiresAt <= now) this.#records.delete(release);
  }
}
