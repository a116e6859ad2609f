/**
 * The check a server makes before it serves once-rounds from Redis: refuse a store that says it can
 * forget, unless the operator accepted that (for development), and then say at every start what can
 * be lost, so that the acceptance is never silent.
 */
import { type Logger, stderrLogger } from "../../../protocol/logger.js";
import type { RedisOnceClient } from "./redis-client.js";
import { checkRedisDurability, type StoreFinding } from "./redis-durability.js";

/** The store says it can forget acknowledged writes, and forgetting was not allowed. */
export class ForgetfulStoreError extends Error {
  readonly findings: readonly StoreFinding[];

  constructor(findings: readonly StoreFinding[]) {
    super(
      `refusing to serve once-rounds from a Redis that can forget a claim, which would let a round run twice: ${findings
        .map((finding) => finding.message)
        .join("; ")}. For development only, allow it explicitly (allowForgetful)`,
    );
    this.name = "ForgetfulStoreError";
    this.findings = findings;
  }
}

export interface RequireDurableRedisOptions {
  /** The bound on each command (default 2000 ms). */
  timeoutMs?: number;
  /** The replicas the once-store waits for on every write: see `checkRedisDurability`. */
  replicaAcks?: number;
  /** Accept a store that can forget (development only): logged as a warning instead of refused. */
  allowForgetful?: boolean;
  logger?: Logger;
}

/**
 * Resolves with the findings when the store keeps acknowledged writes, or when forgetting is allowed;
 * rejects with ForgetfulStoreError when Redis says it can forget. Settings Redis would not disclose
 * (a managed service blocking `CONFIG`) are logged as warnings naming what to check, not refused: the
 * service's own parameter group holds them. Rejects as `checkRedisDurability` does when Redis does not
 * answer.
 */
export async function requireDurableRedis(
  client: RedisOnceClient,
  options: RequireDurableRedisOptions = {},
): Promise<StoreFinding[]> {
  const logger = options.logger ?? stderrLogger;
  const findings = await checkRedisDurability(client, {
    timeoutMs: options.timeoutMs ?? 2000,
    ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }),
  });
  const forgets = findings.filter((finding) => finding.certain);
  if (forgets.length > 0 && options.allowForgetful !== true) throw new ForgetfulStoreError(forgets);
  for (const finding of forgets) {
    logger.warn(
      { setting: finding.setting, value: finding.value },
      `forgetful store allowed for development: ${finding.message}`,
    );
  }
  for (const finding of findings.filter((candidate) => !candidate.certain)) {
    logger.warn({ setting: finding.setting }, `store guarantee unverified: ${finding.message}`);
  }
  return findings;
}
