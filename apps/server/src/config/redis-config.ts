import type { Env } from "./env-schema.js";
import type { RedisConfig } from "./server-config.js";

const TOPOLOGIES = ["REDIS_URL", "REDIS_CLUSTER_URLS", "REDIS_SENTINEL_URLS"] as const;

/** Long enough for a replica under load on the same network, short enough that a round fails closed quickly. */
export const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 1000;

/**
 * The Redis of the fleet from the one topology setting given (REDIS_URL, REDIS_CLUSTER_URLS or
 * REDIS_SENTINEL_URLS with REDIS_SENTINEL_MASTER), or undefined for none; pushes a line to `problems`
 * for each combination that names no single Redis.
 */
export function redisConfig(env: Env, problems: string[]): RedisConfig | undefined {
  const given = TOPOLOGIES.filter((name) => env[name] !== undefined);
  const caFile = env.REDIS_TLS_CA_FILE;
  if (given.length > 1) {
    problems.push(
      `${given.join(" and ")} are both set: set exactly one of ${TOPOLOGIES.join(", ")}, for one Redis, a Redis Cluster or a Sentinel-watched primary`,
    );
    return undefined;
  }
  if ((env.REDIS_SENTINEL_URLS === undefined) !== (env.REDIS_SENTINEL_MASTER === undefined)) {
    problems.push(
      "REDIS_SENTINEL_URLS and REDIS_SENTINEL_MASTER go together: the Sentinels' addresses and the name of the primary they watch (its `sentinel monitor` name)",
    );
    return undefined;
  }
  const replicaAcks = replicaAcksOf(env, problems);
  if (given.length === 0) {
    for (const name of ["REDIS_TLS_CA_FILE", "REDIS_REPLICA_ACKS"] as const) {
      if (env[name] !== undefined)
        problems.push(`${name} is set but no Redis is: set one of ${TOPOLOGIES.join(", ")}`);
    }
    return undefined;
  }
  const urls =
    env.REDIS_URL !== undefined ? [env.REDIS_URL] : (env.REDIS_CLUSTER_URLS ?? env.REDIS_SENTINEL_URLS ?? []);
  if (caFile !== undefined && !urls.every((url) => url.startsWith("rediss:"))) {
    problems.push(
      "REDIS_TLS_CA_FILE is set but the Redis URLs are not all rediss:// (TLS): write rediss:// for a Redis whose certificate that CA signed",
    );
  }
  const shared = {
    ...(caFile === undefined ? {} : { caFile }),
    ...(env.ROUNDTRIP_ALLOW_FORGETFUL_STORE === true ? { allowForgetful: true } : {}),
    ...(replicaAcks === undefined ? {} : { replicaAcks }),
  };
  if (env.REDIS_URL !== undefined) return { url: env.REDIS_URL, ...shared };
  if (env.REDIS_CLUSTER_URLS !== undefined) return { clusterUrls: env.REDIS_CLUSTER_URLS, ...shared };
  return {
    sentinelUrls: env.REDIS_SENTINEL_URLS as string[],
    sentinelMaster: env.REDIS_SENTINEL_MASTER as string,
    ...shared,
  };
}

/**
 * REDIS_REPLICA_ACKS with its timeout, or undefined; a timeout without the count pushes a problem,
 * since it would silently wait for nothing.
 */
function replicaAcksOf(env: Env, problems: string[]): RedisConfig["replicaAcks"] {
  const replicas = env.REDIS_REPLICA_ACKS;
  if (replicas === undefined) {
    if (env.REDIS_REPLICA_ACK_TIMEOUT_MS !== undefined) {
      problems.push(
        "REDIS_REPLICA_ACK_TIMEOUT_MS is set but REDIS_REPLICA_ACKS is not: set REDIS_REPLICA_ACKS to the replicas every once-round write must reach, or unset the timeout",
      );
    }
    return undefined;
  }
  return { replicas, timeoutMs: env.REDIS_REPLICA_ACK_TIMEOUT_MS ?? DEFAULT_REPLICA_ACK_TIMEOUT_MS };
}
