import type { Logger } from "@roundtrip/sdk/protocol";
import {
  RedisNotificationBus,
  RedisOnceStore,
  RedisSessionRegistry,
  RedisTaskStore,
} from "@roundtrip/sdk/redis";
import {
  MemoryOnceStore,
  type NotificationBus,
  type OnceStore,
  type SessionRegistry,
  type TaskStore,
} from "@roundtrip/sdk/server";
import type { RequestStateCodec } from "@roundtrip/sealing";
import { type ApprovalLedger, MemoryApprovalLedger } from "../approvals/approval-ledger.js";
import { RedisApprovalLedger } from "../approvals/redis-approval-ledger.js";
import type { RedisConfig } from "../config/server-config.js";
import { redisConnection } from "./redis-connection.js";
import { redisStoreGuarantee } from "./store-guarantee.js";
import { redisWriteProbe, type StateReadiness } from "./write-probe.js";

/**
 * Everything a fleet must share that is not in the sealed requestState: deploy approvals, the
 * ledger of rounds that run once, the notification bus (list changes, and what a 2025-era session
 * needs from the instance holding its stream or its question), those sessions' facts, and the DPoP
 * proofs already used, so that a proof replayed to another instance is refused too. In one
 * process, or in one Redis for every instance.
 *
 * What is kept here is what the stores are handed: approvals and once-round outcomes arrive sealed
 * with the request-state keys (by SealedApprovalStore and by McpServer), so neither Redis nor this
 * process's memory holds a user's answers, arguments or identity in clear.
 */
export interface SharedState {
  readonly kind: "process" | "redis";
  /** Sealed approval records; `SealedApprovalStore` reads and writes them with the request-state keys. */
  readonly approvals: ApprovalLedger;
  readonly onceStore: OnceStore;
  /** Undefined in one process: the SDK's in-process defaults serve it. */
  readonly bus: NotificationBus | undefined;
  readonly sessions: SessionRegistry | undefined;
  /** Tasks (deploy as a task), sealed by the Tasks that use it; undefined in one process (the SDK's default). */
  readonly taskStore: (TaskStore & { close(): Promise<void> }) | undefined;
  /** DPoP proof ids, claimed once across the fleet; undefined in one process (the SDK's default). */
  readonly dpopProofs: OnceStore | undefined;
  /** Where the state lives, for the startup log: never the URL, which may hold a password. */
  readonly description: Record<string, string | number>;
  /**
   * Holds the store to keeping acknowledged writes before the server serves once-rounds from it:
   * rejects with ForgetfulStoreError (from `@roundtrip/sdk/redis`) when it says it can forget and that
   * was not allowed. The process's own memory is forgetful across restarts too, but it is one process:
   * a restart loses the rounds and the sealed state that could replay them together (their flows then
   * start over), so it passes, and the startup log says it is right for one instance only.
   */
  requireGuarantee(): Promise<void>;
  /**
   * Whether the state takes writes now and still says it keeps them, within the readiness deadline:
   * for `/readyz`.
   */
  readiness(): Promise<StateReadiness>;
  close(): Promise<void>;
}

/** How long Redis may take to answer before the fleet's state counts as unavailable. */
export interface RedisDeadlines {
  /** One command of a store (a claim, a session lookup, an approval); default 2000 ms. */
  commandTimeoutMs?: number;
  /**
   * The write `/readyz` makes; default 500 ms, well within the probes' own timeouts (Kubernetes
   * gives up after 1 s by default).
   */
  readinessTimeoutMs?: number;
  /** How long startup waits for Redis to answer before it starts without knowing its settings (5000 ms). */
  startupWaitMs?: number;
  /** How often `/readyz` asks Redis again whether it keeps acknowledged writes (30 000 ms). */
  guaranteeRecheckMs?: number;
}

export interface RedisStateOptions extends RedisDeadlines {
  /** Accept a Redis that can forget acknowledged writes (ROUNDTRIP_ALLOW_FORGETFUL_STORE), loudly. */
  allowForgetful?: boolean;
  /** Wait for this many replicas on every write a round or an approval depends on (REDIS_REPLICA_ACKS). */
  replicaAcks?: RedisConfig["replicaAcks"];
}

const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const DEFAULT_READINESS_TIMEOUT_MS = 500;
const DEFAULT_STARTUP_WAIT_MS = 5000;

export function processState(): SharedState {
  return {
    kind: "process",
    approvals: new MemoryApprovalLedger(),
    onceStore: new MemoryOnceStore(),
    bus: undefined,
    sessions: undefined,
    taskStore: undefined,
    dpopProofs: undefined,
    description: { stateStore: "process" },
    requireGuarantee: async () => {},
    readiness: async () => ({ ready: true }),
    async close() {},
  };
}

/**
 * Connects in the background: the server starts and answers /readyz while Redis is still away, and
 * the client reconnects on its own. Commands fail at once while disconnected (no offline queue), so a
 * once-round refuses instead of waiting, and the other tools, which need no shared state, keep working.
 * The bus seals what it carries (a client's answer among it) under `codec`, the request-state keys
 * every instance shares, and drops what they do not open. A Redis that is connected but does not
 * answer (frozen, or holding writes) fails each command at its deadline, to the same effect.
 */
export async function redisState(
  config: RedisConfig,
  logger: Logger,
  codec: RequestStateCodec,
  deadlines: RedisStateOptions = {},
): Promise<SharedState> {
  const timeoutMs = deadlines.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const { client, description, explain } = await redisConnection(config);
  let down = false;
  client.on("error", (error: Error) => {
    // Logged once per outage: a reconnect loop would otherwise log every attempt.
    if (down) return;
    down = true;
    logger.warn(
      { ...description, reason: explain(error) },
      "shared state unavailable; once-rounds and 2025-era sessions refuse, and list changes stay on this instance, until Redis is back",
    );
  });
  client.on("ready", () => {
    if (down) logger.info(description, "shared state available again");
    down = false;
  });
  const connected = new Promise<void>((resolve) => client.once("ready", () => resolve()));
  client.connect().catch(() => {});
  // Its own connection (a subscribed one can send nothing else), reconnecting like the client; the
  // client's error log already reports the outage.
  const bus = new RedisNotificationBus({ client, codec, logger, timeoutMs });
  const readinessTimeoutMs = deadlines.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  const probe = redisWriteProbe(client, readinessTimeoutMs);
  const replicaAcks = deadlines.replicaAcks;
  const acks = replicaAcks === undefined ? {} : { replicaAcks };
  const guarantee = redisStoreGuarantee(client, {
    allowForgetful: deadlines.allowForgetful ?? false,
    ...(replicaAcks === undefined ? {} : { replicaAcks: replicaAcks.replicas }),
    logger,
    connected,
    startupWaitMs: deadlines.startupWaitMs ?? DEFAULT_STARTUP_WAIT_MS,
    commandTimeoutMs: timeoutMs,
    readinessTimeoutMs,
    ...(deadlines.guaranteeRecheckMs === undefined ? {} : { recheckMs: deadlines.guaranteeRecheckMs }),
  });
  const taskStore = new RedisTaskStore({ client, timeoutMs });
  return {
    kind: "redis",
    approvals: new RedisApprovalLedger({ client, timeoutMs, ...acks }),
    onceStore: new RedisOnceStore({ client, timeoutMs, ...acks }),
    bus,
    sessions: new RedisSessionRegistry({ client, timeoutMs }),
    taskStore,
    dpopProofs: new RedisOnceStore({ client, prefix: "roundtrip:dpop:", timeoutMs }),
    description: {
      ...description,
      sharedThroughRedis: "approvals, once-rounds, notifications, sessions, tasks, DPoP proof ids",
      ...(replicaAcks === undefined ? {} : { redisReplicaAcks: replicaAcks.replicas }),
    },
    requireGuarantee: () => guarantee.atStart(),
    async readiness() {
      const [writes, keeps] = await Promise.all([probe(), guarantee.readiness()]);
      if (writes.ready) return keeps;
      guarantee.recheckSoon();
      return writes;
    },
    async close() {
      await taskStore.close();
      await bus.close();
      if (client.isOpen) await client.close();
    },
  };
}

export function openSharedState(
  redis: RedisConfig | undefined,
  logger: Logger,
  codec: RequestStateCodec,
  deadlines: RedisDeadlines = {},
): Promise<SharedState> {
  return redis === undefined
    ? Promise.resolve(processState())
    : redisState(redis, logger, codec, {
        ...deadlines,
        ...(redis.allowForgetful === undefined ? {} : { allowForgetful: redis.allowForgetful }),
        ...(redis.replicaAcks === undefined ? {} : { replicaAcks: redis.replicaAcks }),
      });
}
