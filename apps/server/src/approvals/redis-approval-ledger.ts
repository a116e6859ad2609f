import { type RedisOnceClient, sendWithDeadline } from "@roundtrip/sdk/redis";
import type { ApprovalLedger } from "./approval-ledger.js";

// Each change is one script, so the check and the write it allows happen atomically on the Redis
// server: two instances approving, or deploying, the same release at once see one outcome.
const ADD = `local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

const SWAP = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0`;

export interface RedisApprovalLedgerOptions {
  client: RedisOnceClient;
  /**
   * Prepended to each release's key (default `roundtrip:sealed-approval:`; the plaintext hashes of
   * earlier versions were under `roundtrip:approval:`, so neither version reads the other's records).
   */
  prefix?: string;
  /** How long one command may take before the ledger counts Redis as unavailable (default 2000 ms). */
  timeoutMs?: number;
  /**
   * Count a write as made only once `replicas` replicas acknowledged it (`WAIT`), as the once-store does
   * (REDIS_REPLICA_ACKS): an approval a person saw recorded survives a failover to a replica.
   */
  replicaAcks?: { replicas: number; timeoutMs: number } | undefined;
}

/** Too few replicas acknowledged an approval's write in time: it may be lost at a failover. */
export class ApprovalUnconfirmedError extends Error {
  constructor(acked: unknown, acks: { replicas: number; timeoutMs: number }) {
    super(
      `only ${String(acked)} of the ${acks.replicas} Redis replicas required (REDIS_REPLICA_ACKS) acknowledged the approval's write within ${acks.timeoutMs} ms; check the replicas' health and replication lag, then try again`,
    );
    this.name = "ApprovalUnconfirmedError";
  }
}

/** Approvals in Redis, one string per release that expires with the approval: shared by the fleet. */
export class RedisApprovalLedger implements ApprovalLedger {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #acks: RedisApprovalLedgerOptions["replicaAcks"];

  constructor(options: RedisApprovalLedgerOptions) {
    this.#client = options.client;
    this.#acks = options.replicaAcks;
    this.#prefix = options.prefix ?? "roundtrip:sealed-approval:";
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  async add(release: string, record: string, ttlMs: number): Promise<string | undefined> {
    const reply = await this.#written(["EVAL", ADD, "1", this.#key(release), record, String(ttlMs)]);
    return typeof reply === "string" ? reply : undefined;
  }

  async get(release: string): Promise<string | undefined> {
    const reply = await this.#send(["GET", this.#key(release)]);
    return typeof reply === "string" ? reply : undefined;
  }

  async swap(release: string, expected: string, next: string): Promise<boolean> {
    return (await this.#written(["EVAL", SWAP, "1", this.#key(release), expected, next])) === 1;
  }

  #key(release: string): string {
    return `${this.#prefix}${release}`;
  }

  /**
   * A change, followed on the same connection by `WAIT` when replicas must acknowledge it (commands leave
   * in order, so the count covers it). `wrote` tells a reply that changed nothing, which stands however
   * many replicas answered: ADD returns the record already there, SWAP 0.
   */
  async #written(args: string[]): Promise<unknown> {
    const acks = this.#acks;
    if (acks === undefined) return this.#send(args);
    const wait = ["WAIT", String(acks.replicas), String(acks.timeoutMs)];
    const [reply, acked] = await Promise.all([
      this.#send(args),
      // WAIT names no key: on a cluster it must reach the node that took the write (EVAL's one key).
      sendWithDeadline(this.#client, wait, this.#timeoutMs + acks.timeoutMs, args[3]),
    ]);
    const wrote = reply === null || reply === 1;
    if (wrote && (typeof acked !== "number" || acked < acks.replicas)) {
      throw new ApprovalUnconfirmedError(acked, acks);
    }
    return reply;
  }

  #send(args: string[]): Promise<unknown> {
    // Given up at its deadline, a script may still run when Redis wakes: a consume then spends the
    // approval with no deployment (closed), an approve stands as its approver asked.
    return sendWithDeadline(this.#client, args, this.#timeoutMs);
  }
}
