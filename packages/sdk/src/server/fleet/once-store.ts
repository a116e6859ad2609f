/**
 * Where McpServer records the rounds of its once-flows (`once: true` tools, prompts and resource
 * templates), so that a round whose handler ran is never run again, on any instance of the fleet.
 *
 * A round's key is its flow id and round id (`<flow>.<round>`, both random, minted by McpServer in the
 * sealed requestState). A round is free, then claimed (pending: one handler is running it), then done
 * (its outcome readable for the outcome TTL, the round itself remembered as consumed until no state of
 * its flow can open any more). Every method throws when the store cannot answer; McpServer then
 * refuses to run the handler (fail closed).
 *
 * All durations are milliseconds.
 */
export interface OnceStore {
  /**
   * Atomically claims a free round for `token` (a random string naming this attempt), holding it for
   * `ttlMs`. True when this call claimed it; false when the round was already claimed or done.
   */
  claim(key: string, token: string, ttlMs: number): Promise<boolean>;
  /**
   * Records the outcome of a round `token` claimed: it stays readable for `outcomeTtlMs` and the round
   * stays consumed for `consumedTtlMs`. Throws when the claim is no longer `token`'s. The outcome is
   * opaque: McpServer seals it before it gets here, and opens what `read` returns.
   */
  complete(key: string, token: string, outcome: string, ttl: OnceTtl): Promise<void>;
  /** Frees a round `token` claimed but did not complete (its handler failed); a no-op otherwise. */
  release(key: string, token: string): Promise<void>;
  /** Where a round stands. */
  read(key: string): Promise<OnceRecord>;
  /**
   * Whether the store can take claims now, for a readiness probe (`/readyz`): false rather than a
   * throw when it cannot.
   */
  ready(): Promise<boolean>;
}

export interface OnceTtl {
  outcomeMs: number;
  consumedMs: number;
}

/**
 * `free`: never claimed (or forgotten); `pending`: claimed, its handler still running; `done`: completed,
 * with its outcome; `consumed`: completed, its outcome no longer stored.
 */
export type OnceRecord =
  | { readonly status: "free" }
  | { readonly status: "pending" }
  | { readonly status: "done"; readonly outcome: string }
  | { readonly status: "consumed" };

/** Checks a TTL handed to a store: a positive whole number of milliseconds. */
export function checkTtlMs(ttl: number, what: string): number {
  if (!Number.isFinite(ttl) || ttl <= 0) {
    throw new RangeError(`${what} must be a positive number of milliseconds, got ${String(ttl)}`);
  }
  return Math.ceil(ttl);
}
