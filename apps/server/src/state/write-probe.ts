import { type RedisOnceClient, sendWithDeadline } from "@roundtrip/sdk/redis";

/** Whether the shared state takes writes now, and if not, why: what `/readyz` reports of it. */
export type StateReadiness =
  | { readonly ready: true }
  | {
      readonly ready: false;
      readonly reason: string;
      /** True when the store takes writes but says it can forget them (its guarantee, not an outage). */
      readonly forgets?: boolean;
    };

/** One small key for the whole fleet, rewritten by every probe and gone soon after the last. */
const PROBE_KEY = "roundtrip:readyz";
const PROBE_TTL_MS = "5000";

/**
 * Readiness by a write, because what the fleet needs of Redis is writes (claims, sessions, proof ids):
 * Redis answers PING while it refuses every write (out of memory under `noeviction`, a read-only
 * replica) or holds them (`CLIENT PAUSE WRITE`). Bounded by `timeoutMs`, so that a frozen Redis makes
 * the probe say so instead of outlasting the caller's own probe timeout.
 */
export function redisWriteProbe(client: RedisOnceClient, timeoutMs: number): () => Promise<StateReadiness> {
  return async () => {
    try {
      await sendWithDeadline(client, ["SET", PROBE_KEY, "1", "PX", PROBE_TTL_MS], timeoutMs);
      return { ready: true };
    } catch (error) {
      return { ready: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };
}
