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
}

/** Approvals in Redis, one string per release that expires with the approval: shared by the fleet. */
export class RedisApprovalLedger implements ApprovalLedger {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(options: RedisApprovalLedgerOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "roundtrip:sealed-approval:";
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  async add(release: string, record: string, ttlMs: number): Promise<string | undefined> {
    const reply = await this.#send(["EVAL", ADD, "1", this.#key(release), record, String(ttlMs)]);
    return typeof reply === "string" ? reply : undefined;
  }

  async get(release: string): Promise<string | undefined> {
    const reply = await this.#send(["GET", this.#key(release)]);
    return typeof reply === "string" ? reply : undefined;
  }

  async swap(release: string, expected: string, next: string): Promise<boolean> {
    return (await this.#send(["EVAL", SWAP, "1", this.#key(release), expected, next])) === 1;
  }

  #key(release: string): string {
    return `${this.#prefix}${release}`;
  }

  #send(args: string[]): Promise<unknown> {
    // Given up at its deadline, a script may still run when Redis wakes: a consume then spends the
    // approval with no deployment (closed), an approve stands as its approver asked.
    return sendWithDeadline(this.#client, args, this.#timeoutMs);
  }
}
