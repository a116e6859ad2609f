import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@roundtrip/sdk";
import { RedisTaskStore } from "@roundtrip/sdk/redis";
import { Tasks } from "@roundtrip/sdk/server";
import { BullMqTaskRunner } from "@roundtrip/sdk/tasks-bullmq";
import { createNodeRedisClient } from "bullmq";
import { createClient } from "redis";
import * as z from "zod";

// Every instance and every worker process runs this same definition, with the same Redis and key.
const redis = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
redis.on("error", (error) => console.error("redis:", error.message));
await redis.connect();
// BullMQ keeps its own connections; node-redis through BullMQ's adapter, or ioredis options.
const queueRedis = createClient({ url: process.env.REDIS_URL });
queueRedis.on("error", (error) => console.error("task queue:", error.message));

const runner = new BullMqTaskRunner({ connection: createNodeRedisClient(queueRedis) });
const tasks = new Tasks({
  store: new RedisTaskStore({ client: redis }),
  runner,
  // 32 bytes every instance shares: the store and the queue hold nothing of a task unsealed.
  key: Buffer.from(process.env.TASK_KEY ?? "", "base64"),
});
export const mcp = new McpServer({ name: "ops", version: "1.0.0" }, { tasks });

mcp.tool("rebuild_index", { input: z.object({ index: z.string() }), task: "required" }, async (args, ctx) => {
  for (const step of ["snapshot", "rebuild", "swap"]) {
    // In a task, a progress message is the task's statusMessage, seen by tasks/get on any instance.
    await ctx.sendProgress(0, 3, `${step} ${args.index}`);
    await sleep(1000, undefined, { signal: ctx.signal });
  }
  return `rebuilt ${args.index}`;
});

// Run tasks here too; a separate worker process runs these same lines and only this call.
runner.work(tasks);
