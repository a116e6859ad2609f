import { createHash } from "node:crypto";
import { type ConnectionOptions, Queue, Worker } from "bullmq";
import type { TaskRunner } from "../task-runner.js";
import type { Tasks } from "../tasks.js";

export interface BullMqTaskRunnerOptions {
  /**
   * The Redis the queue lives in, as BullMQ takes it: a node-redis client through BullMQ's
   * `createNodeRedisClient(createClient({ url }))` (with its offline queue: BullMQ sends before the
   * connection is ready, and `enqueueTimeoutMs` bounds each task's queueing anyway), or ioredis
   * options. The Redis must keep what it
   * acknowledged and evict nothing (`maxmemory-policy noeviction`), or queued tasks are lost.
   */
  connection: ConnectionOptions;
  /** The queue every instance and worker of one fleet shares (default `roundtrip-tasks`). */
  queueName?: string;
  /** BullMQ's key prefix (default `roundtrip`); on Redis Cluster give it a hash tag, e.g. `{roundtrip}`. */
  prefix?: string;
  /** How long queueing one task may take before the tools/call fails (default 2000 ms). */
  enqueueTimeoutMs?: number;
  /**
   * How long a worker's hold on a task lasts without renewal (default 30000 ms): a worker that died
   * is found out that much later, and its task runs again on another.
   */
  lockDurationMs?: number;
  /** How often workers look for tasks whose worker died (default `lockDurationMs`). */
  stalledIntervalMs?: number;
  /** How many times a task's worker may die before the task is given up (default 5). */
  maxStalledCount?: number;
  /** How many times a task is run while its store does not answer (default 20, backing off from 1 s). */
  attempts?: number;
}

export interface WorkOptions {
  /** How many tasks this worker runs at once (default 16). */
  concurrency?: number;
}

/** What a job holds: the task's id and nothing else; its call, answers and state are sealed in the store. */
interface TaskJob {
  taskId: string;
}

/**
 * A durable TaskRunner on BullMQ: a task accepted by one instance is a job of a shared queue, run by
 * whichever worker takes it (`work`: the server instances themselves, or separate processes running
 * the same McpServer definition with the same task store and key). A worker that dies leaves its
 * job stalled, and BullMQ hands it to another worker, which runs the task again from what the store
 * keeps (its call, its answers, its last round). Cancelling goes through the task store, and aborts
 * the body wherever it runs.
 */
export class BullMqTaskRunner implements TaskRunner {
  readonly #options: BullMqTaskRunnerOptions;
  readonly #queue: Queue<TaskJob>;
  readonly #workers: Worker<TaskJob>[] = [];
  readonly #timeout: number;

  constructor(options: BullMqTaskRunnerOptions) {
    if (options?.connection === undefined) {
      throw new TypeError(
        "BullMqTaskRunner needs { connection }: e.g. createNodeRedisClient(createClient({ url })) from bullmq and redis",
      );
    }
    this.#options = options;
    this.#timeout = options.enqueueTimeoutMs ?? 2000;
    this.#queue = new Queue<TaskJob>(this.#name, {
      connection: options.connection,
      prefix: this.#prefix,
      skipWaitingForReady: true,
    });
    // BullMQ reconnects by itself; an error surfaces where a command fails (enqueue).
    this.#queue.on("error", () => {});
  }

  get #name(): string {
    return this.#options.queueName ?? "roundtrip-tasks";
  }

  get #prefix(): string {
    return this.#options.prefix ?? "roundtrip";
  }

  async enqueue(taskId: string): Promise<void> {
    const attempts = this.#options.attempts ?? 20;
    const added = this.#queue.add("task", { taskId } satisfies TaskJob, {
      // Not the task id, which is its owner's bearer capability: a digest of it, so a task is queued once.
      jobId: createHash("sha256").update(taskId).digest("base64url"),
      attempts,
      backoff: { type: "exponential", delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { age: 24 * 60 * 60 },
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `the task queue's Redis did not answer within ${this.#timeout} ms: it is down, stalled or unreachable`,
            ),
          ),
        this.#timeout,
      );
    });
    try {
      await Promise.race([added, late]);
    } finally {
      clearTimeout(timer);
      added.catch(() => undefined);
    }
  }

  /**
   * Runs the queue's tasks with `tasks`, which must be the Tasks of an McpServer that has the fleet's
   * tools (and the fleet's store and key). Returns at once: the worker takes jobs once Redis answers,
   * so a server starting while Redis is away still starts.
   */
  work(tasks: Tasks, options: WorkOptions = {}): Worker<TaskJob> {
    const lockDuration = this.#options.lockDurationMs ?? 30_000;
    const worker = new Worker<TaskJob>(this.#name, (job) => tasks.run(job.data.taskId), {
      connection: this.#options.connection,
      prefix: this.#prefix,
      concurrency: options.concurrency ?? 16,
      lockDuration,
      stalledInterval: this.#options.stalledIntervalMs ?? lockDuration,
      maxStalledCount: this.#options.maxStalledCount ?? 5,
    });
    // BullMQ reconnects by itself; a task whose store failed is retried (attempts).
    worker.on("error", () => {});
    this.#workers.push(worker);
    return worker;
  }

  /** Stops this process's workers (a running task is left to be run again elsewhere) and the queue. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.splice(0).map((worker) => worker.close(true)));
    await this.#queue.close();
  }
}
