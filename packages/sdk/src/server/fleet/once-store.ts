/**
 * Where McpServer records the rounds of its once-flows (`once: true` tools, prompts and resource
 * templates), so that a round whose handler ran is never run again, on any instance of the fleet.
 *
 * A round's key is its flow id and round id (`<flow>.<round>`, both random, minted by McpServer in the
 * sealed requestState). A round is free, then leased (pending: one attempt holds it for a lease that its
 * holder renews while the handler runs), started once the handler is entered, then done (its outcome
 * readable for the outcome TTL, the round itself remembered as consumed until no state of its flow can
 * open any more). A lease that lapses before the handler started frees the round for one more attempt;
 * one that lapses after leaves the round orphaned: its effect may have happened, so it never runs again.
 * The lease is timed by the store's clock, never an instance's. Every method throws when the store
 * cannot answer; McpServer then refuses to run the handler (fail closed).
 *
 * All durations are milliseconds.
 */
export interface OnceStore {
  /**
   * Atomically claims a free key for `token`, holding it for `ttlMs`, with no lease: true when this call
   * claimed it, false when it was already claimed. What DPoP replay detection uses; rounds use `lease`.
   */
  claim(key: string, token: string, ttlMs: number): Promise<boolean>;
  /**
   * Atomically leases a round for one attempt: a free round, or one whose lease lapsed before its
   * handler started (the attempt number then goes up by one). Otherwise nothing changes and the answer
   * says where the round stands.
   */
  lease(key: string, request: OnceLeaseRequest): Promise<OnceLeaseResult>;
  /**
   * Marks a round `token` leased as started (its handler is about to be entered) and renews its lease;
   * false when the round is no longer `token`'s (its lease lapsed and another attempt took it).
   */
  start(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Renews the lease of a round `token` holds, from now; false when the round is no longer `token`'s. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Records the outcome of a round `token` started: it stays readable for `outcomeTtlMs` and the round
   * stays consumed for `consumedTtlMs`. Throws when the round is no longer `token`'s. The outcome is
   * opaque: McpServer seals it before it gets here, and opens what `read` returns.
   */
  complete(key: string, token: string, outcome: string, ttl: OnceTtl): Promise<void>;
  /** Frees a round `token` holds but did not complete (its handler failed or never ran); a no-op otherwise. */
  release(key: string, token: string): Promise<void>;
  /** Where a round stands. */
  read(key: string): Promise<OnceRecord>;
  /**
   * Whether the store can take claims now, for a readiness probe (`/readyz`): false rather than a
   * throw when it cannot.
   */
  ready(): Promise<boolean>;
}

export interface OnceLeaseRequest {
  /** A random string naming this attempt. */
  token: string;
  /** Who runs the attempt (the instance id), kept with the lease for diagnosis. */
  holder: string;
  /** How long the lease holds unless renewed. */
  leaseMs: number;
  /** How long the round is remembered: until no state of its flow can open any more. */
  ttlMs: number;
}

export type OnceLeaseResult =
  | { readonly leased: true; readonly attempt: number }
  | { readonly leased: false; readonly record: OnceRecord };

export interface OnceTtl {
  outcomeMs: number;
  consumedMs: number;
}

/**
 * `free`: never claimed (or forgotten); `pending`: leased, `leaseMs` left on its lease (`started` once its
 * handler was entered); `orphaned`: its lease lapsed with no outcome (`started`: it may have had its
 * effect, so it is never run again; not started: the next lease runs it); `done`: completed, with its
 * outcome; `consumed`: completed, its outcome no longer stored. `holder` and `attempt` say who held it.
 */
export type OnceRecord =
  | { readonly status: "free" }
  | {
      readonly status: "pending";
      readonly started: boolean;
      readonly leaseMs: number;
      readonly holder: string;
      readonly attempt: number;
    }
  | {
      readonly status: "orphaned";
      readonly started: boolean;
      readonly holder: string;
      readonly attempt: number;
    }
  | { readonly status: "done"; readonly outcome: string }
  | { readonly status: "consumed" };

/**
 * A write the store took but could not confirm as durable (too few replicas acknowledged it in time):
 * McpServer treats it as a failed write, so nothing runs on it, and says why.
 */
export class OnceStoreUnconfirmedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OnceStoreUnconfirmedError";
  }
}

/** Checks a TTL handed to a store: a positive whole number of milliseconds. */
export function checkTtlMs(ttl: number, what: string): number {
  if (!Number.isFinite(ttl) || ttl <= 0) {
    throw new RangeError(`${what} must be a positive number of milliseconds, got ${String(ttl)}`);
  }
  return Math.ceil(ttl);
}
