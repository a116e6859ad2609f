/**
 * Whether a Redis keeps the writes it acknowledged, judged from what it says of itself. A once-round
 * runs once only while the store remembers its claim: a Redis that restarts without the claim (no
 * append-only file, or one synced after the reply), evicts it under memory pressure, or is a replica
 * (read-only, and behind its primary) lets a replayed round run its handler again.
 *
 * Only `appendfsync always` syncs before it replies. `everysec` replies first, and while the previous
 * second's sync still runs (a busy disk) Redis holds new writes in its own memory for up to 2 s: a kill
 * of redis-server, not only a crash of its host, then loses writes it acknowledged.
 *
 * Managed services (ElastiCache, MemoryDB) often rename or block `CONFIG`: a refused command is a
 * finding that says what could not be checked and where to check it, never a crash.
 */
import { RedisDeadlineError, sendWithDeadline } from "./command-deadline.js";
import type { RedisOnceClient } from "./redis-client.js";

/** One reason a Redis may forget an acknowledged write, or one setting it would not disclose. */
export interface StoreFinding {
  /** The Redis setting concerned. */
  readonly setting: "appendonly" | "appendfsync" | "maxmemory-policy" | "role" | "replicas";
  /** What Redis says it is, or `unknown` when it would not say. */
  readonly value: string;
  /** True when Redis said so: the store can forget. False when the setting could not be read. */
  readonly certain: boolean;
  /** What can be lost and what to set, for a log line or an error. */
  readonly message: string;
}

export interface RedisDurabilityOptions {
  /** The bound on each command (default 2000 ms). */
  timeoutMs?: number;
  /**
   * The replicas the once-store waits for on every write (`RedisOnceStore`'s `replicaAcks.replicas`).
   * With at least one, what the store acknowledged is on its replicas, so the primary's own file is
   * not judged (none, or one synced after the reply, as ElastiCache keeps state): the finding is
   * instead fewer replicas connected than that.
   */
  replicaAcks?: number;
}

/**
 * Asks Redis (`INFO persistence`, `CONFIG GET appendfsync`, `CONFIG GET maxmemory-policy`, `ROLE`,
 * each within `timeoutMs`) and returns what makes it forget; empty for AOF with `appendfsync always`
 * (or, with `replicaAcks`, that many replicas connected, whatever the file), `noeviction`, on a
 * primary. Rejects only when Redis cannot be reached or does not answer in time, since nothing can be
 * said of it then.
 */
export async function checkRedisDurability(
  client: RedisOnceClient,
  options: RedisDurabilityOptions = {},
): Promise<StoreFinding[]> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const send = (...args: string[]) => sendWithDeadline(client, args, timeoutMs);
  const replicaAcks = options.replicaAcks ?? 0;
  const [persistence, replication, fsync, policy, role] = await Promise.all([
    send("INFO", "persistence").then(String),
    replicaAcks > 0 ? send("INFO", "replication").then(String) : Promise.resolve(""),
    configValue(send, "appendfsync"),
    configValue(send, "maxmemory-policy").then((value) =>
      value === undefined ? infoField(send, "memory", "maxmemory_policy") : value,
    ),
    send("ROLE"),
  ]);
  const aof = field(persistence, "aof_enabled");
  // Writes the replicas acknowledged need no file that syncs before it replies, only the replicas;
  // and without them every write fails its WAIT, whatever the file keeps.
  return [
    ...(replicaAcks > 0
      ? replicationFindings(field(replication, "connected_slaves"), replicaAcks)
      : [...appendOnlyFindings(aof), ...(aof === "1" ? fsyncFindings(fsync) : [])]),
    ...policyFindings(policy),
    ...roleFindings(role),
  ];
}

type Send = (...args: string[]) => Promise<unknown>;

/** A CONFIG value, or undefined when the server refuses CONFIG (renamed or blocked by a managed service). */
async function configValue(send: Send, name: string): Promise<string | undefined> {
  let reply: unknown;
  try {
    reply = await send("CONFIG", "GET", name);
  } catch (error) {
    if (isErrorReply(error)) return undefined;
    throw error;
  }
  if (Array.isArray(reply) && typeof reply[1] === "string") return reply[1];
  if (reply !== null && typeof reply === "object" && name in reply) return String(Reflect.get(reply, name));
  return undefined;
}

async function infoField(send: Send, section: string, name: string): Promise<string | undefined> {
  try {
    return field(String(await send("INFO", section)), name);
  } catch (error) {
    if (isErrorReply(error)) return undefined;
    throw error;
  }
}

// An error reply from Redis ("ERR unknown command", "NOPERM …"), as opposed to a deadline or a lost
// connection: Redis answered, it only would not say.
function isErrorReply(error: unknown): boolean {
  return (
    error instanceof Error && !(error instanceof RedisDeadlineError) && /^[A-Z]{2,}\b/.test(error.message)
  );
}

function field(info: string, name: string): string | undefined {
  const line = info.split(/\r?\n/).find((candidate) => candidate.startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

function appendOnlyFindings(aof: string | undefined): StoreFinding[] {
  if (aof === "1") return [];
  if (aof === "0") {
    return [
      {
        setting: "appendonly",
        value: "no",
        certain: true,
        message:
          "appendonly is no: set it to yes (with appendfsync always), or a restart or crash loses every claim written since the last snapshot and a replayed round runs twice",
      },
    ];
  }
  return [
    {
      setting: "appendonly",
      value: "unknown",
      certain: false,
      message:
        "INFO persistence does not say whether the append-only file is on: make sure the store persists every write (appendonly yes, or a durable service such as MemoryDB), or a restart lets a round run twice",
    },
  ];
}

/**
 * Durable by replication: every write is acknowledged only once `replicaAcks` replicas have it. That
 * holds through a lost primary when a replica is promoted in its place (Sentinel, a managed service);
 * a primary restarted on its own data first would bring its replicas back to what its file kept.
 */
function replicationFindings(connected: string | undefined, replicaAcks: number): StoreFinding[] {
  const count = Number(connected ?? "0");
  if (count >= replicaAcks) return [];
  return [
    {
      setting: "replicas",
      value: String(count),
      certain: true,
      message: `only ${count} of the ${replicaAcks} replicas replicaAcks waits for are connected: every write would be refused as not durable; bring the replicas back, or stop waiting for them on a Redis with appendonly yes and appendfsync always`,
    },
  ];
}

function fsyncFindings(fsync: string | undefined): StoreFinding[] {
  if (fsync === "always") return [];
  if (fsync === undefined) {
    return [
      {
        setting: "appendfsync",
        value: "unknown",
        certain: false,
        message:
          "CONFIG GET appendfsync was refused (a managed service blocks CONFIG): check in its parameter group that appendfsync is always, or a crash loses the claims Redis acknowledged before syncing them",
      },
    ];
  }
  const lost =
    fsync === "everysec"
      ? "Redis replies before syncing, and while a sync lags (a busy disk) holds writes in memory for up to 2 s, so a kill of redis-server or a crash loses claims it acknowledged"
      : "a crash of the host loses the claims the OS had not yet written";
  return [
    {
      setting: "appendfsync",
      value: fsync,
      certain: true,
      message: `appendfsync is ${fsync}: set it to always (or wait for replicas on every write with replicaAcks): ${lost}, and a replayed round runs twice`,
    },
  ];
}

function policyFindings(policy: string | undefined): StoreFinding[] {
  if (policy === "noeviction") return [];
  if (policy === undefined) {
    return [
      {
        setting: "maxmemory-policy",
        value: "unknown",
        certain: false,
        message:
          "neither CONFIG GET nor INFO memory says the maxmemory-policy: check in the service's parameter group that it is noeviction, or an evicted claim lets a round run twice",
      },
    ];
  }
  return [
    {
      setting: "maxmemory-policy",
      value: policy,
      certain: true,
      message: `maxmemory-policy is ${policy}: set it to noeviction, or an evicted claim lets a round run twice`,
    },
  ];
}

function roleFindings(role: unknown): StoreFinding[] {
  const name = Array.isArray(role) ? String(role[0]) : "unknown";
  // Valkey may come to say "primary" where Redis says "master".
  if (name === "master" || name === "primary") return [];
  return [
    {
      setting: "role",
      value: name,
      certain: name !== "unknown",
      message: `the store is a ${name === "slave" ? "replica" : name}, not a primary: point the fleet at the primary, since a replica refuses claims and lags behind what the primary acknowledged`,
    },
  ];
}
