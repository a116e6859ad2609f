/**
 * A OnceStore in Redis, shared by every instance of a fleet.
 *
 * Keys, under `prefix` (default `roundtrip:once:`), for a round `<flow>.<round>`:
 * - `<prefix>{<flow>.<round>}`: `pending:<token>:<attempt>:<holder>` while leased, `started:…` once its
 *   handler was entered, then `done`; expires when no state of its flow can open any more. (A plain
 *   `claim`, as DPoP replay detection makes, is `pending:<token>` with no lease.)
 * - `<prefix>{<flow>.<round>}:lease`: the holding token, for the lease (`PX`: Redis's clock times it).
 * - `<prefix>{<flow>.<round>}:outcome`: the outcome, sealed by McpServer, for the outcome TTL.
 * The braces are a hash tag, so the keys of a round live in one Redis Cluster slot.
 *
 * Commands: claim is `SET <round> pending:<token> NX PX <ttl>`; lease, read, start, renew, complete and
 * release are one script each (`EVALSHA`, see RedisScript), so every transition is atomic; ready is
 * `SET <prefix>ready 1 PX 1000`, shared by the calls made while one is on its way. A round McpServer
 * runs costs three: lease, start, complete. The start mark is its own command on purpose: one that
 * landed after its caller gave up (Redis stalled past the deadline) must leave a handler that never
 * ran free to run, not looking started.
 * With `replicaAcks`, every write a round depends on (lease, start, complete) is followed on the same
 * connection by `WAIT`, and counts as written only when enough replicas acknowledged it.
 */
import {
  checkTtlMs,
  type OnceLeaseRequest,
  type OnceLeaseResult,
  type OnceRecord,
  type OnceStore,
  OnceStoreUnconfirmedError,
  type OnceTtl,
} from "../once-store.js";
import { sendWithDeadline } from "./command-deadline.js";
import { firstKeyOf, type RedisOnceClient } from "./redis-client.js";
import { RedisScript } from "./redis-script.js";

export interface RedisOnceStoreOptions {
  client: RedisOnceClient;
  /** Prepended to every key (default `roundtrip:once:`). */
  prefix?: string;
  /** How long one command may take before the store counts Redis as unavailable (default 2000 ms). */
  timeoutMs?: number;
  /**
   * Count a round's lease, start mark and outcome as written only once `replicas` replicas acknowledged
   * them (`WAIT replicas timeoutMs`); fewer in time fails the round closed. Without it, a write is
   * acknowledged by the primary alone, and a failover to a replica that lagged can forget it.
   */
  replicaAcks?: { replicas: number; timeoutMs: number };
}

// A claim is a write: Redis can answer PING while it refuses every write (out of memory under
// noeviction, a read-only replica) or holds them (CLIENT PAUSE WRITE), so readiness writes too.
const READY_PROBE_TTL_MS = "1000";

// Where a round stands, and with ARGV[5] == 'lease', the lease taken when it can be. KEYS: round,
// lease, outcome; ARGV: token, holder, lease ms, round ms, mode.
const LEASE = new RedisScript(`local round = redis.call('GET', KEYS[1])
if not round then
  if ARGV[5] ~= 'lease' then return {'free'} end
  redis.call('SET', KEYS[1], 'pending:' .. ARGV[1] .. ':1:' .. ARGV[2], 'PX', ARGV[4])
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
  return {'leased', 1}
end
if round == 'done' then
  local outcome = redis.call('GET', KEYS[3])
  if outcome then return {'done', outcome} end
  return {'consumed'}
end
local state, attempt, holder = string.match(round, '^(%a+):[%w_-]+:(%d+):(.*)$')
if not state then return {'pending', 'started', 0, 1, ''} end
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return {'pending', state, left, tonumber(attempt), holder} end
if state == 'pending' and ARGV[5] == 'lease' then
  local next = tonumber(attempt) + 1
  redis.call('SET', KEYS[1], 'pending:' .. ARGV[1] .. ':' .. next .. ':' .. ARGV[2], 'KEEPTTL')
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
  return {'leased', next}
end
return {'orphaned', state, 0, tonumber(attempt), holder}`);

// Whether KEYS[1] is held by token ARGV[1] (in any state but done), as the scripts below check it.
const HELD = `local round = redis.call('GET', KEYS[1]) or ''
local function held(state)
  local prefix = state .. ':' .. ARGV[1] .. ':'
  return string.sub(round, 1, #prefix) == prefix
end
`;

// KEYS: round, lease; ARGV: token, lease ms.
const START = new RedisScript(`${HELD}if not held('pending') then return 0 end
redis.call('SET', KEYS[1], 'started' .. string.sub(round, 8), 'KEEPTTL')
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`);

// KEYS: round, lease; ARGV: token, lease ms.
const RENEW = new RedisScript(`${HELD}if not (held('pending') or held('started')) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`);

// KEYS: round, lease, outcome; ARGV: token, outcome, outcome ms, round ms.
const COMPLETE = new RedisScript(`${HELD}if not held('started') then return 0 end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[4])
redis.call('DEL', KEYS[2])
return 1`);

// KEYS: round, lease; ARGV: token.
const RELEASE =
  new RedisScript(`${HELD}if round == 'pending:' .. ARGV[1] or held('pending') or held('started') then
  return redis.call('DEL', KEYS[1], KEYS[2])
end
return 0`);

export class RedisOnceStore implements OnceStore {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #timeout: number;
  readonly #acks: { replicas: number; timeoutMs: number } | undefined;
  #probe: Promise<boolean> | undefined;

  constructor(options: RedisOnceStoreOptions) {
    const client = options?.client;
    if (typeof client?.sendCommand !== "function") {
      throw new TypeError("RedisOnceStore needs { client }: a node-redis client, e.g. createClient({ url })");
    }
    this.#client = client;
    this.#prefix = options.prefix ?? "roundtrip:once:";
    this.#timeout = checkTtlMs(options.timeoutMs ?? 2000, "timeoutMs");
    this.#acks = checkReplicaAcks(options.replicaAcks);
  }

  async claim(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtlMs(ttlMs, "claim ttl");
    // A claim that times out is refused; should Redis take it later, it holds the round for nobody.
    const reply = await this.#send(["SET", this.#round(key), `pending:${token}`, "NX", "PX", String(ttl)]);
    return reply === "OK";
  }

  async lease(key: string, request: OnceLeaseRequest): Promise<OnceLeaseResult> {
    const leaseMs = String(checkTtlMs(request.leaseMs, "lease"));
    const ttl = String(checkTtlMs(request.ttlMs, "claim ttl"));
    const args = [request.token, request.holder, leaseMs, ttl, "lease"];
    // A lease whose answer is lost holds the round for nobody until it lapses: not started, it then
    // goes to the next attempt.
    const leased = (reply: unknown): reply is unknown[] => Array.isArray(reply) && reply[0] === "leased";
    const reply = await LEASE.run((command) => this.#written(command, leased), this.#keys(key), args);
    if (leased(reply)) return { leased: true, attempt: Number(reply[1]) };
    return { leased: false, record: recordOf(reply) };
  }

  async start(key: string, token: string, leaseMs: number): Promise<boolean> {
    const lease = String(checkTtlMs(leaseMs, "lease"));
    const started = (reply: unknown) => reply === 1;
    const reply = await START.run((command) => this.#written(command, started), this.#roundKeys(key), [
      token,
      lease,
    ]);
    return started(reply);
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const lease = String(checkTtlMs(leaseMs, "lease"));
    return (await RENEW.run((command) => this.#send(command), this.#roundKeys(key), [token, lease])) === 1;
  }

  async complete(key: string, token: string, outcome: string, ttl: OnceTtl): Promise<void> {
    const outcomeMs = checkTtlMs(ttl.outcomeMs, "outcome ttl");
    const consumedMs = checkTtlMs(ttl.consumedMs, "consumed ttl");
    const args = [token, outcome, String(outcomeMs), String(consumedMs)];
    const reply = await COMPLETE.run((command) => this.#written(command), this.#keys(key), args);
    if (reply !== 1) throw new Error("the round is no longer held by this attempt");
  }

  async release(key: string, token: string): Promise<void> {
    await RELEASE.run((command) => this.#send(command), this.#roundKeys(key), [token]);
  }

  async read(key: string): Promise<OnceRecord> {
    const reply = await LEASE.run((command) => this.#send(command), this.#keys(key), [
      "",
      "",
      "1",
      "1",
      "read",
    ]);
    return recordOf(reply);
  }

  /**
   * Rounds that ask while a probe is on its way share its answer, at most one round trip older than a
   * probe of their own: one write for them all, where each first round of a busy fleet sent its own.
   */
  ready(): Promise<boolean> {
    this.#probe ??= this.#send(["SET", `${this.#prefix}ready`, "1", "PX", READY_PROBE_TTL_MS])
      .then(
        (reply) => reply === "OK",
        () => false,
      )
      .finally(() => {
        this.#probe = undefined;
      });
    return this.#probe;
  }

  #round(key: string): string {
    return `${this.#prefix}{${key}}`;
  }

  #keys(key: string): [string, string, string] {
    const round = this.#round(key);
    return [round, `${round}:lease`, `${round}:outcome`];
  }

  #roundKeys(key: string): [string, string] {
    const round = this.#round(key);
    return [round, `${round}:lease`];
  }

  async #send(args: string[]): Promise<unknown> {
    return sendWithDeadline(this.#client, args, this.#timeout);
  }

  /**
   * A write a round depends on: with replicaAcks, `WAIT` follows it on the same connection (commands
   * leave in order), so the count covers it. A reply for which `wrote` is false changed nothing (a
   * lease that found the round done), so it stands however many replicas answered.
   */
  async #written(args: string[], wrote: (reply: unknown) => boolean = () => true): Promise<unknown> {
    const acks = this.#acks;
    if (acks === undefined) return this.#send(args);
    const wait = ["WAIT", String(acks.replicas), String(acks.timeoutMs)];
    const [reply, acked] = await Promise.all([
      this.#send(args),
      // WAIT names no key: on a cluster it must reach the node the write went to, or it counts nothing.
      sendWithDeadline(this.#client, wait, this.#timeout + acks.timeoutMs, firstKeyOf(args)),
    ]);
    if (wrote(reply) && (typeof acked !== "number" || acked < acks.replicas)) {
      throw new OnceStoreUnconfirmedError(
        `only ${String(acked)} of the ${acks.replicas} Redis replicas required (replicaAcks) acknowledged the write within ${acks.timeoutMs} ms; check the replicas' health and replication lag`,
      );
    }
    return reply;
  }
}

function checkReplicaAcks(acks: RedisOnceStoreOptions["replicaAcks"]) {
  if (acks === undefined) return undefined;
  const { replicas, timeoutMs } = acks ?? {};
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new RangeError(
      `replicaAcks.replicas must be a whole number of replicas >= 1, got ${String(replicas)}`,
    );
  }
  return { replicas, timeoutMs: checkTtlMs(timeoutMs, "replicaAcks.timeoutMs") };
}

/** A reply of the LEASE script as a record. */
function recordOf(reply: unknown): OnceRecord {
  const [status, a, b, c, d] = Array.isArray(reply) ? reply : [];
  if (status === "done" && typeof a === "string") return { status: "done", outcome: a };
  if (status === "consumed") return { status: "consumed" };
  if (status === "pending" || status === "orphaned") {
    const common = { started: a === "started", attempt: Number(c), holder: String(d ?? "") };
    return status === "pending" ? { status, leaseMs: Number(b), ...common } : { status, ...common };
  }
  if (status === "free") return { status: "free" };
  throw new Error(`unexpected reply from the once-store's script: ${String(status)}`);
}
