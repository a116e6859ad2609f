import { createHash } from "node:crypto";

/**
 * Verified tokens kept until a deadline, keyed by a digest of the token. Bounded: when full, the oldest
 * entry goes, so a flood of distinct tokens costs memory up to the bound only.
 */
export class TokenCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get(token: string, now: number): V | undefined {
    const key = digest(token);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(token: string, value: V, until: number): void {
    if (this.#maxEntries <= 0) return;
    const key = digest(token);
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, until });
  }

  get size(): number {
    return this.#entries.size;
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
