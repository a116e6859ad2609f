import type { Logger } from "@roundtrip/sdk/protocol";
import {
  checkRedisDurability,
  type RedisOnceClient,
  requireDurableRedis,
  type StoreFinding,
} from "@roundtrip/sdk/redis";
import type { StateReadiness } from "./write-probe.js";

/**
 * Rounds that run once, approvals and DPoP proof ids hold only on a store that keeps the writes it
 * acknowledged. This is where the reference server holds Redis to that: once at startup (refusing to
 * start on a store that says it can forget, unless ROUNDTRIP_ALLOW_FORGETFUL_STORE accepts it), and
 * again while it runs, for `/readyz`, since an operator's `CONFIG SET` or a failover can take the
 * guarantee away from a running store.
 */
export interface StoreGuarantee {
  /** Rejects with ForgetfulStoreError when Redis says it can forget and that is not allowed. */
  atStart(): Promise<void>;
  /** Ready, or not with the setting that now lets the store forget; bounded by `readinessTimeoutMs`. */
  readiness(): Promise<StateReadiness>;
  /**
   * Asks again at the next `readiness()`: after an outage, since the store that comes back may not be
   * the one that left (a failover, a restart with other settings).
   */
  recheckSoon(): void;
}

export interface StoreGuaranteeOptions {
  /** Accepts a forgetful store for development, with a warning at every start. */
  allowForgetful: boolean;
  /**
   * The replicas every once-round write waits for (REDIS_REPLICA_ACKS): a Redis without an append-only
   * file keeps what it acknowledged on them, so it passes while that many are connected.
   */
  replicaAcks?: number;
  logger: Logger;
  /** Resolves once the client is connected; startup waits for it at most `startupWaitMs`. */
  connected: Promise<void>;
  startupWaitMs: number;
  /** The bound on each command: the command deadline at startup, the readiness deadline after. */
  commandTimeoutMs: number;
  readinessTimeoutMs: number;
  /** How often `/readyz` asks again (default 30 s). */
  recheckMs?: number;
  now?: () => number;
}

/**
 * Asked at most every `recheckMs`, not on every probe: the settings change rarely (an operator, a
 * failover), the four commands cost Redis more than the probe's one write, and every instance of a
 * fleet is probed every few seconds. Between checks `/readyz` answers from the last verdict.
 */
const DEFAULT_RECHECK_MS = 30_000;

export function redisStoreGuarantee(client: RedisOnceClient, options: StoreGuaranteeOptions): StoreGuarantee {
  const recheckMs = options.recheckMs ?? DEFAULT_RECHECK_MS;
  const now = options.now ?? Date.now;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let forgets: StoreFinding[] = [];
  let checking: Promise<void> | undefined;
  const acks = options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks };

  const recheck = (): Promise<void> => {
    checking ??= checkRedisDurability(client, { timeoutMs: options.readinessTimeoutMs, ...acks })
      .then((findings) => {
        checkedAt = now();
        forgets = findings.filter((finding) => finding.certain);
      })
      // Unreachable or stalled: the write probe reports that; the last verdict stands meanwhile.
      .catch(() => {})
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };

  return {
    async atStart() {
      let timer: NodeJS.Timeout | undefined;
      const reached = await Promise.race([
        options.connected.then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), options.startupWaitMs);
        }),
      ]).finally(() => clearTimeout(timer));
      if (!reached) {
        options.logger.warn(
          { waitedMs: options.startupWaitMs },
          "Redis did not answer at startup, so whether it keeps acknowledged writes is not yet known; /readyz says degraded, naming the setting, if it turns out it can forget",
        );
        return;
      }
      const findings = await requireDurableRedis(client, {
        timeoutMs: options.commandTimeoutMs,
        allowForgetful: options.allowForgetful,
        logger: options.logger,
        ...acks,
      });
      checkedAt = now();
      forgets = findings.filter((finding) => finding.certain);
    },
    async readiness() {
      if (now() - checkedAt >= recheckMs) await recheck();
      if (forgets.length === 0 || options.allowForgetful) return { ready: true };
      return {
        ready: false,
        forgets: true,
        reason: `the store can forget acknowledged writes: ${forgets.map((finding) => finding.message).join("; ")}`,
      };
    },
    recheckSoon() {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
