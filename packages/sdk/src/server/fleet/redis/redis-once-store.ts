/**
 * A OnceStore in Redis, shared by every instance of a fleet.
 *
 * Keys, under `prefix` (default `roundtrip:once:`), for a round `<flow>.<round>`:
 * - `<prefix>{<flow>.<round>}`: `pending:<token>` while claimed, then `done`; expires when no state of
 *   its flow can open any more.
 * - `<prefix>{<flow>.<round>}:outcome`: the outcome, sealed by McpServer, for the outcome TTL.
 * The braces are a hash tag, so both keys of a round live in one Redis Cluster slot.
 *
 * Commands: claim is `SET <round> pending:<token> NX PX <ttl>`; complete and release are one `EVAL`
 * each that first checks the round still holds the caller's token; read is `MGET <round> <outcome>`;
 * ready is `SET <prefix>ready 1 PX 1000`.
 */
import { checkTtlMs, type OnceRecord, type OnceStore, type OnceTtl } from "../once-store.js";
import { sendWithDeadline } from "./command-deadline.js";
import type { RedisOnceClient } from "./redis-client.js";

export interface RedisOnceStoreOptions {
  client: RedisOnceClient;
  /** Prepended to every key (default `roundtrip:once:`). */
  prefix?: string;
  /** How long one command may take before the store counts Redis as unavailable (default 2000 ms). */
  timeoutMs?: number;
}

// A claim is a write: Redis can answer PING while it refuses every write (out of memory under
// noeviction, a read-only replica) or holds them (CLIENT PAUSE WRITE), so readiness writes too.
const READY_PROBE_TTL_MS = "1000";

const COMPLETE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  redis.call('SET', KEYS[1], 'done', 'PX', ARGV[4])
  return 1
end
return 0`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

export class RedisOnceStore implements OnceStore {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #timeout: number;

  constructor(options: RedisOnceStoreOptions) {
    const client = options?.client;
    if (typeof client?.sendCommand !== "function") {
      throw new TypeError("RedisOnceStore needs { client }: a node-redis client, e.g. createClient({ url })");
    }
    this.#client = client;
    this.#prefix = options.prefix ?? "roundtrip:once:";
    this.#timeout = checkTtlMs(options.timeoutMs ?? 2000, "timeoutMs");
  }

  async claim(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtlMs(ttlMs, "claim ttl");
    // A claim that times out is refused; should Redis take it later, it holds the round for nobody.
    const reply = await this.#send(["SET", this.#round(key), `pending:${token}`, "NX", "PX", String(ttl)]);
    return reply === "OK";
  }

  async complete(key: string, token: string, outcome: string, ttl: OnceTtl): Promise<void> {
    const outcomeMs = checkTtlMs(ttl.outcomeMs, "outcome ttl");
    const consumedMs = checkTtlMs(ttl.consumedMs, "consumed ttl");
    const round = this.#round(key);
    const args = [`pending:${token}`, outcome, String(outcomeMs), String(consumedMs)];
    const reply = await this.#send(["EVAL", COMPLETE, "2", round, `${round}:outcome`, ...args]);
    if (reply !== 1) throw new Error("the round's claim expired or belongs to another attempt");
  }

  async release(key: string, token: string): Promise<void> {
    await this.#send(["EVAL", RELEASE, "1", this.#round(key), `pending:${token}`]);
  }

  async read(key: string): Promise<OnceRecord> {
    const round = this.#round(key);
    const reply = await this.#send(["MGET", round, `${round}:outcome`]);
    const [status, outcome] = Array.isArray(reply) ? reply : [];
    if (typeof status !== "string") return { status: "free" };
    if (status.startsWith("pending:")) return { status: "pending" };
    return typeof outcome === "string" ? { status: "done", outcome } : { status: "consumed" };
  }

  async ready(): Promise<boolean> {
    try {
      return (await this.#send(["SET", `${this.#prefix}ready`, "1", "PX", READY_PROBE_TTL_MS])) === "OK";
    } catch {
      return false;
    }
  }

  #round(key: string): string {
    return `${this.#prefix}{${key}}`;
  }

  async #send(args: string[]): Promise<unknown> {
    return sendWithDeadline(this.#client, args, this.#timeout);
  }
}
