import { type RedisOnceClient, sendWithDeadline } from "@roundtrip/sdk/redis";
import {
  APPROVAL_TTL_MS,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalStore,
  type ApproveOutcome,
  type Approver,
  type ConsumeOutcome,
  ReleaseTakenError,
} from "./approval-store.js";

// Each step is one script, so a check and the change it allows happen atomically on the Redis server:
// two instances approving, or deploying, the same release at once see one outcome.
const REQUEST = `local owner = redis.call('HMGET', KEYS[1], 'issuer', 'subject')
if owner[1] then
  if owner[1] == ARGV[3] and owner[2] == ARGV[4] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'service', ARGV[1], 'env', ARGV[2], 'issuer', ARGV[3], 'subject', ARGV[4],
  'clientId', ARGV[5], 'state', 'pending')
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`;

const APPROVE = `local r = redis.call('HMGET', KEYS[1], 'issuer', 'subject', 'state')
if not r[1] then return 'unknown' end
if r[1] ~= ARGV[1] or r[2] ~= ARGV[2] then return 'not-requester' end
if r[3] == 'pending' then redis.call('HSET', KEYS[1], 'state', 'approved') end
return 'approved'`;

const CONSUME = `local r = redis.call('HMGET', KEYS[1], 'issuer', 'subject', 'state')
if not r[1] or r[1] ~= ARGV[1] or r[2] ~= ARGV[2] then return 'not-approved' end
if r[3] == 'deployed' then return 'already-deployed' end
if r[3] ~= 'approved' then return 'not-approved' end
redis.call('HSET', KEYS[1], 'state', 'deployed')
return 'deployed'`;

const STATES: readonly string[] = ["pending", "approved", "deployed"];

export interface RedisApprovalStoreOptions {
  client: RedisOnceClient;
  /** Prepended to each release's key (default `roundtrip:approval:`). */
  prefix?: string;
  ttlMs?: number;
  /** How long one command may take before the store counts Redis as unavailable (default 2000 ms). */
  timeoutMs?: number;
}

/** Approvals in Redis, one hash per release that expires with the approval: shared by the fleet. */
export class RedisApprovalStore implements ApprovalStore {
  readonly #client: RedisOnceClient;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;

  constructor(options: RedisApprovalStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "roundtrip:approval:";
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  async request(release: string, details: ApprovalRequest): Promise<void> {
    const { service, env, principal } = details;
    const args = [service, env, principal.issuer, principal.subject, principal.clientId, String(this.#ttlMs)];
    const reply = await this.#send(["EVAL", REQUEST, "1", this.#key(release), ...args]);
    if (reply !== 1) throw new ReleaseTakenError(release);
  }

  async approve(release: string, approver: Approver): Promise<ApproveOutcome> {
    const reply = await this.#send([
      "EVAL",
      APPROVE,
      "1",
      this.#key(release),
      approver.issuer,
      approver.subject,
    ]);
    return reply as ApproveOutcome;
  }

  async consume(release: string, requester: Approver): Promise<ConsumeOutcome> {
    const args = [requester.issuer, requester.subject];
    return (await this.#send(["EVAL", CONSUME, "1", this.#key(release), ...args])) as ConsumeOutcome;
  }

  async status(release: string): Promise<ApprovalRecord | undefined> {
    const reply = await this.#send(["HGETALL", this.#key(release)]);
    const fields = fieldsOf(reply);
    const { service, env, issuer, subject, clientId, state } = fields;
    if (service === undefined || env === undefined || issuer === undefined || subject === undefined) {
      return undefined;
    }
    if (clientId === undefined || state === undefined || !STATES.includes(state)) return undefined;
    return { release, service, env, requester: { clientId, issuer, subject }, state: state as ApprovalState };
  }

  #key(release: string): string {
    return `${this.#prefix}${release}`;
  }

  async #send(args: string[]): Promise<unknown> {
    if (!this.#client.isReady) {
      throw new Error("the approval store's Redis is not connected (closed or reconnecting); retry shortly");
    }
    // Given up at its deadline, a script may still run when Redis wakes: a consume then spends the
    // approval with no deployment (closed), an approve stands as its approver asked.
    return sendWithDeadline(this.#client, args, this.#timeoutMs);
  }
}

/** HGETALL answers a flat [field, value, ...] list over RESP2 and a map over RESP3. */
function fieldsOf(reply: unknown): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = Object.create(null);
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  } else if (reply instanceof Map) {
    for (const [key, value] of reply) fields[String(key)] = String(value);
  } else if (reply !== null && typeof reply === "object") {
    for (const [key, value] of Object.entries(reply)) fields[key] = String(value);
  }
  return fields;
}
