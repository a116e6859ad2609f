import { createHash } from "node:crypto";
import type { TaskRecord, TaskStore } from "../task-store.js";
import { sendWithDeadline } from "./command-deadline.js";
import { isClusterClient } from "./redis-client.js";
import type { RedisBusClient, RedisSubscriber } from "./redis-notification-bus.js";

export interface RedisTaskStoreOptions {
  /** A node-redis client of any topology; `duplicate()` opens the connection that hears changes. */
  client: RedisBusClient;
  /** Prepended to every key and channel (default `roundtrip:task:`). */
  prefix?: string;
  /** How long one command may take before it counts as failed (default 2000 ms). */
  timeoutMs?: number;
  /**
   * How often a watched task is read again without being told of a change (default 1000 ms): pub/sub
   * is fire and forget, so a change published while the listening connection reconnected is still
   * heard, that much later.
   */
  rereadMs?: number;
  /** Hears the listening connection's errors (it reconnects on its own); default: ignored. */
  onError?: (error: Error) => void;
}

// KEYS: task. ARGV: revision, record, expiry (ms since the epoch, or '' for none).
// Refuses a taken id, and an id whose task expired is free again: Redis dropped its key.
const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[1], 'rec', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1`;

// KEYS: task. ARGV: expected revision, next revision, record. HSET keeps the key's expiry.
const SWAP = `if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'rec', ARGV[3])
return 1`;

/** The record as stored: without its id (the key names a hash of it) and revision (a field of its own). */
const SEALED = ["inputRequests", "inputResponses", "outcome", "call", "checkpoint"] as const;

type Stored = Omit<TaskRecord, "taskId" | "revision" | (typeof SEALED)[number]> &
  Partial<Record<(typeof SEALED)[number], string>>;

/**
 * Tasks in Redis, shared by every instance of a fleet. Each task is one hash under
 * `<prefix>{<h>}`, with `<h>` a hash of the task id (the id is a bearer capability: neither a key
 * nor a channel shows it, and each task's key is one Redis Cluster slot of its own): `rev`, the
 * revision, and `rec`, the record as JSON whose questions, answers and outcome are the sealed bytes
 * the caller gave, base64. A compare-and-set is one script on the revision; a task with `ttlMs`
 * expires in Redis at `createdAt + ttlMs`. A change is published on the task's channel
 * `<prefix>{<h>}:changed` (sharded on Cluster) carrying nothing but the new revision, and `watch`
 * listens there, reading the task again every `rereadMs` besides.
 */
export class RedisTaskStore implements TaskStore {
  readonly #client: RedisBusClient;
  readonly #prefix: string;
  readonly #timeout: number;
  readonly #rereadMs: number;
  readonly #sharded: boolean;
  readonly #onError: (error: Error) => void;
  readonly #watchers = new Map<string, { listeners: Set<() => void>; timer: NodeJS.Timeout }>();
  #subscriber: { connection: RedisSubscriber; connected: Promise<unknown> } | undefined;
  #closed = false;

  constructor(options: RedisTaskStoreOptions) {
    const client = options?.client;
    if (typeof client?.sendCommand !== "function" || typeof client.duplicate !== "function") {
      throw new TypeError("RedisTaskStore needs { client }: a node-redis client, e.g. createClient({ url })");
    }
    this.#client = client;
    this.#prefix = options.prefix ?? "roundtrip:task:";
    this.#timeout = options.timeoutMs ?? 2000;
    this.#rereadMs = options.rereadMs ?? 1000;
    this.#sharded = isClusterClient(client);
    this.#onError = options.onError ?? (() => {});
  }

  async create(record: TaskRecord): Promise<void> {
    const expiry = record.ttlMs === null ? "" : String(record.createdAt + record.ttlMs);
    const args = [String(record.revision), encode(record), expiry];
    const created = await this.#send(["EVAL", CREATE, "1", this.#key(record.taskId), ...args]);
    if (created !== 1) throw new Error(`Task id ${record.taskId} is already taken`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const reply = await this.#send(["HMGET", this.#key(taskId), "rev", "rec"]);
    const [revision, stored] = Array.isArray(reply) ? reply : [];
    if (typeof revision !== "string" || typeof stored !== "string") return undefined;
    return decode(taskId, Number(revision), stored);
  }

  async compareAndSet(expected: TaskRecord, next: TaskRecord): Promise<boolean> {
    if (next.taskId !== expected.taskId) return false;
    const key = this.#key(next.taskId);
    const revision = String(expected.revision + 1);
    const swapped = await this.#send([
      "EVAL",
      SWAP,
      "1",
      key,
      String(expected.revision),
      revision,
      encode(next),
    ]);
    if (swapped !== 1) return false;
    // Local watchers hear it at once; the others through the channel, or at their next reread.
    this.#deliver(next.taskId);
    const publish = this.#sharded ? "SPUBLISH" : "PUBLISH";
    await this.#send([publish, `${key}:changed`, revision]).catch(this.#onError);
    return true;
  }

  watch(taskId: string, listener: () => void): () => void {
    let watcher = this.#watchers.get(taskId);
    if (!watcher) {
      const timer = setInterval(() => this.#deliver(taskId), this.#rereadMs);
      timer.unref();
      watcher = { listeners: new Set(), timer };
      this.#watchers.set(taskId, watcher);
      this.#listen(taskId);
    }
    const { listeners } = watcher;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size > 0 || this.#watchers.get(taskId)?.listeners !== listeners) return;
      clearInterval(watcher.timer);
      this.#watchers.delete(taskId);
      this.#unlisten(taskId);
    };
  }

  /** Stops every watch and closes the listening connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const { timer } of this.#watchers.values()) clearInterval(timer);
    this.#watchers.clear();
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await subscriber.connection.close().catch(() => undefined);
  }

  #key(taskId: string): string {
    const tag = createHash("sha256").update(taskId).digest("base64url").slice(0, 22);
    return `${this.#prefix}{${tag}}`;
  }

  #deliver(taskId: string): void {
    for (const listener of [...(this.#watchers.get(taskId)?.listeners ?? [])]) listener();
  }

  /** The listening connection, opened on the first watch: a store that is never watched opens none. */
  #connection(): { connection: RedisSubscriber; connected: Promise<unknown> } {
    if (!this.#subscriber) {
      const connection = this.#client.duplicate();
      connection.on("error", this.#onError);
      this.#subscriber = { connection, connected: connection.connect() };
    }
    return this.#subscriber;
  }

  #listen(taskId: string): void {
    if (this.#closed) return;
    const { connection, connected } = this.#connection();
    const channel = `${this.#key(taskId)}:changed`;
    const heard = () => this.#deliver(taskId);
    connected
      .then(() =>
        this.#sharded && connection.sSubscribe
          ? connection.sSubscribe(channel, heard)
          : connection.subscribe(channel, heard),
      )
      // Unheard changes still reach the watchers at the next reread.
      .catch((error: unknown) => this.#onError(error instanceof Error ? error : new Error(String(error))));
  }

  #unlisten(taskId: string): void {
    const subscriber = this.#subscriber?.connection as
      | (RedisSubscriber & {
          unsubscribe?(channel: string): Promise<unknown>;
          sUnsubscribe?(channel: string): Promise<unknown>;
        })
      | undefined;
    if (!subscriber?.isReady) return;
    const channel = `${this.#key(taskId)}:changed`;
    const stop = this.#sharded ? subscriber.sUnsubscribe?.(channel) : subscriber.unsubscribe?.(channel);
    stop?.catch(() => undefined);
  }

  #send(args: string[]): Promise<unknown> {
    return sendWithDeadline(this.#client, args, this.#timeout);
  }
}

function encode(record: TaskRecord): string {
  const { taskId: _id, revision: _revision, ...rest } = record;
  const stored: Record<string, unknown> = { ...rest };
  for (const field of SEALED) {
    const bytes = record[field];
    if (bytes !== undefined) stored[field] = Buffer.from(bytes).toString("base64");
  }
  return JSON.stringify(stored);
}

function decode(taskId: string, revision: number, text: string): TaskRecord {
  const stored = JSON.parse(text) as Stored;
  const record: Record<string, unknown> = { ...stored, taskId, revision };
  for (const field of SEALED) {
    const base64 = stored[field];
    if (base64 !== undefined) record[field] = new Uint8Array(Buffer.from(base64, "base64"));
  }
  return record as unknown as TaskRecord;
}
