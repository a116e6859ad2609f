import { createNodeHandler } from "@roundtrip/sdk";
import { RedisTaskStore } from "@roundtrip/sdk/redis";
import { Tasks } from "@roundtrip/sdk/server";
import { BullMqTaskRunner } from "@roundtrip/sdk/tasks-bullmq";
import { createNodeRedisClient } from "bullmq";
import { createClient } from "redis";
import { type Listening, listenNode } from "./listen.js";
import { ownRedis } from "./own-redis.js";
import { benchMcpServer } from "./roundtrip-mcp.js";

/**
 * add as a durable task: the task in a RedisTaskStore and queued on BullMQ, both on a real
 * redis-server on loopback started for this server process, the worker in the same process, as one
 * instance of a fleet runs it. What the store and the queue cost each task, beside `roundtrip-tasks`.
 */
export async function tasksInRedis(): Promise<Listening> {
  const redis = await ownRedis();
  const queueClient = createClient({ url: redis.url });
  queueClient.on("error", () => {});
  const store = new RedisTaskStore({ client: redis.client });
  const runner = new BullMqTaskRunner({ connection: createNodeRedisClient(queueClient) });
  const tasks = new Tasks({ store, runner, pollIntervalMs: 1 });
  const handle = createNodeHandler(benchMcpServer({ tasks }));
  runner.work(tasks, { concurrency: 64 });
  const listening = await listenNode((req, res) => void handle(req, res));
  return {
    ...listening,
    redisCommands: redis.counter,
    async close() {
      await listening.close();
      await runner.close();
      await store.close();
      queueClient.destroy();
      await redis.close();
    },
  };
}
