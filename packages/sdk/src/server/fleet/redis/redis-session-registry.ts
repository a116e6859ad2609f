import { createHash } from "node:crypto";
import { SessionLimitExceeded, sessionLimitMessage } from "../../legacy/live-sessions.js";
import { checkSessionFacts } from "../../legacy/session-facts.js";
import type { SessionLimits, SessionRecord, SessionRegistry } from "../session-registry.js";
import { sendWithDeadline } from "./command-deadline.js";
import type { RedisOnceClient } from "./redis-client.js";
import { RedisScript } from "./redis-script.js";

export interface RedisSessionRegistryOptions {
  client: RedisOnceClient;
  /** Prepended to every key (default `roundtrip:session:`). */
  prefix?: string;
  /** How long one command may take before it counts as failed (default 2000 ms). */
  timeoutMs?: number;
}

// Scores are Redis's own clock, as the keys' expiry is: a slot frees exactly when its session expires,
// whatever the instances' clocks say.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// KEYS: session, principal's set. ARGV: idle ms, cap, id, record.
// Reads first, and the first write is the SET, which Redis refuses while over maxmemory: a script that
// began with a write that frees memory (ZREMRANGEBYSCORE) would be let through every write after it.
const CREATE = new RedisScript(`${NOW}local held = redis.call('ZCOUNT', KEYS[2], now, '+inf')
if held >= tonumber(ARGV[2]) then return held end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return -1`);

// KEYS: session, principal's set. ARGV: idle ms, id.
const LOAD = new RedisScript(`${NOW}local record = redis.call('GET', KEYS[1])
if not record then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return false
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return record`);

const REMOVE = new RedisScript(`redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])`);

/**
 * 2025-era session facts in Redis, for a fleet without sticky routing. Keys, under `prefix`, with
 * `<p>` a hash of the principal (so a session is found only by the principal that opened it, and
 * both keys of a principal share one Redis Cluster slot):
 * - `<prefix>{<p>}:<session id>`: the SessionRecord as JSON, expiring after the idle time, which
 *   every use pushes back.
 * - `<prefix>{<p>}`: a sorted set of the principal's sessions scored by expiry, for the cap.
 */
export class RedisSessionRegistry implements SessionRegistry {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #timeout: number;

  constructor(options: RedisSessionRegistryOptions) {
    const client = options?.client;
    if (typeof client?.sendCommand !== "function") {
      throw new TypeError(
        "RedisSessionRegistry needs { client }: a node-redis client, e.g. createClient({ url })",
      );
    }
    this.#client = client;
    this.#prefix = options.prefix ?? "roundtrip:session:";
    this.#timeout = options.timeoutMs ?? 2000;
  }

  /** Refuses (-32602) a record whose client-chosen facts are over MAX_SESSION_FACTS_BYTES, before sending it. */
  async create(id: string, record: SessionRecord, limits: SessionLimits): Promise<void> {
    checkSessionFacts(record);
    const [session, set] = this.#keys(id, record.principal);
    const idle = String(Math.ceil(limits.idleMs));
    const send = (command: string[]) => this.#send(command);
    const args = [idle, String(limits.maxPerPrincipal), id, JSON.stringify(record)];
    const reply = await CREATE.run(send, [session, set], args);
    if (typeof reply === "number" && reply >= 0) {
      throw new SessionLimitExceeded(-32600, sessionLimitMessage(reply));
    }
  }

  async load(id: string, principal: string, limits: SessionLimits): Promise<SessionRecord | undefined> {
    const [session, set] = this.#keys(id, principal);
    const idle = String(Math.ceil(limits.idleMs));
    const reply = await LOAD.run((command) => this.#send(command), [session, set], [idle, id]);
    if (typeof reply !== "string") return undefined;
    const record = JSON.parse(reply) as SessionRecord;
    return record.principal === principal ? record : undefined;
  }

  async save(id: string, record: SessionRecord, limits: SessionLimits): Promise<void> {
    checkSessionFacts(record);
    const [session] = this.#keys(id, record.principal);
    const idle = String(Math.ceil(limits.idleMs));
    await this.#send(["SET", session, JSON.stringify(record), "PX", idle, "XX"]);
  }

  async remove(id: string, principal: string): Promise<void> {
    const [session, set] = this.#keys(id, principal);
    await REMOVE.run((command) => this.#send(command), [session, set], [id]);
  }

  #keys(id: string, principal: string): [string, string] {
    const tag = createHash("sha256").update(principal).digest("base64url").slice(0, 22);
    const set = `${this.#prefix}{${tag}}`;
    return [`${set}:${id}`, set];
  }

  async #send(args: string[]): Promise<unknown> {
    return sendWithDeadline(this.#client, args, this.#timeout);
  }
}
