import type { McpServer } from "@roundtrip/sdk";
import type { Logger } from "@roundtrip/sdk/protocol";
import { Tasks } from "@roundtrip/sdk/server";
import type { RequestStateCodec } from "@roundtrip/sealing";
import type { RedisConfig } from "../config/server-config.js";
import { redisConnection } from "./redis-connection.js";
import type { SharedState } from "./shared-state.js";

/** The tasks extension of the server: where its tasks live, and who runs their bodies. */
export interface TaskRuntime {
  readonly tasks: Tasks;
  /** For the startup log. */
  readonly description: Record<string, string>;
  /** Runs queued tasks in this instance, once its McpServer (the tools a task calls) exists. */
  work(mcp: McpServer): void;
  close(): Promise<void>;
}

/**
 * In one process, tasks live in its memory and run where they were accepted. With Redis, they live in
 * the fleet's Redis, sealed with the request-state keys; with one Redis (REDIS_URL) each task is also
 * a BullMQ job that every instance works on, so a task whose instance died runs again on another.
 * Cluster and Sentinel share the tasks but run each where it was accepted: the queue needs one Redis.
 */
export async function openTaskRuntime(
  redis: RedisConfig | undefined,
  state: SharedState,
  codec: RequestStateCodec,
  logger: Logger,
  lockSeconds: number,
): Promise<TaskRuntime> {
  if (redis?.url === undefined || state.taskStore === undefined) {
    const tasks = new Tasks({
      codec,
      logger,
      ...(state.taskStore === undefined ? {} : { store: state.taskStore }),
    });
    const runs = state.taskStore === undefined ? "in this process" : "in Redis, run where accepted";
    return { tasks, description: { tasks: runs }, work: () => {}, close: async () => {} };
  }
  // Loaded only here: a server without Redis never needs bullmq.
  const [{ BullMqTaskRunner }, { createNodeRedisClient }] = await Promise.all([
    import("@roundtrip/sdk/tasks-bullmq"),
    import("bullmq"),
  ]);
  const { client } = await redisConnection(redis, { offlineQueue: true });
  client.on("error", () => {});
  const runner = new BullMqTaskRunner({
    connection: createNodeRedisClient(client),
    lockDurationMs: lockSeconds * 1000,
  });
  const tasks = new Tasks({ codec, logger, store: state.taskStore, runner });
  return {
    tasks,
    description: { tasks: "in Redis, queued on BullMQ for every instance" },
    work() {
      // Takes jobs once Redis answers: a server starting while Redis is away still starts.
      runner.work(tasks);
    },
    async close() {
      // BullMQ waits on what a Redis that never answered holds in the offline queue: drop it first.
      if (!client.isReady) (client as unknown as { destroy(): void }).destroy();
      await runner.close();
      if (client.isOpen) await client.close();
    },
  };
}
