import { createNodeRedisClient } from "bullmq";
import { createClient } from "redis";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../src/protocol/input-required.js";
import type { Logger } from "../../src/protocol/logger.js";
import { RedisTaskStore } from "../../src/server/fleet/redis/redis-task-store.js";
import { connectedClient } from "../../src/server/fleet/redis/test-support/connected-client.js";
import { McpServer } from "../../src/server/index.js";
import { toElicitationSchema } from "../../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../../src/server/mcp-server/input-responses.js";
import { BullMqTaskRunner } from "../../src/server/tasks/bullmq/bullmq-task-runner.js";
import { Tasks } from "../../src/server/tasks/tasks.js";

const Confirm = z.object({ confirm: z.boolean() });

/** What differs between the instances of the fleet: how the rollout goes, and how it is reported. */
export interface RolloutHooks {
  /** Called when the body starts rolling out (after the confirmation). */
  rolling(): void;
  /** The rollout itself; the result names the instance that finished it. */
  rollout(signal: AbortSignal): Promise<string>;
}

export interface FleetSettings {
  redisUrl: string;
  /** Hex of the fleet's 32-byte task key. */
  key: string;
  prefix: string;
  /** The worker lock, short so that a dead worker's task is run again soon. */
  lockMs: number;
  /** The bound on each Redis command and on queueing. */
  timeoutMs?: number;
  logger: Logger;
}

/**
 * One instance of a fleet whose tasks run on BullMQ: the same McpServer definition in every instance
 * and worker (a `rollout` tool that asks to confirm, then rolls out), its tasks in Redis.
 */
export async function fleetInstance(settings: FleetSettings, hooks: RolloutHooks) {
  const client = await connectedClient(settings.redisUrl);
  const timeoutMs = settings.timeoutMs ?? 2000;
  const store = new RedisTaskStore({ client, prefix: `${settings.prefix}:task:`, timeoutMs, rereadMs: 200 });
  const queueClient = createClient({ url: settings.redisUrl });
  queueClient.on("error", () => {});
  const runner = new BullMqTaskRunner({
    connection: createNodeRedisClient(queueClient),
    prefix: `${settings.prefix}:bull`,
    lockDurationMs: settings.lockMs,
    stalledIntervalMs: Math.ceil(settings.lockMs / 2),
    enqueueTimeoutMs: timeoutMs,
  });
  const tasks = new Tasks({
    store,
    runner,
    key: Buffer.from(settings.key, "hex"),
    logger: settings.logger,
    pollIntervalMs: 50,
  });
  const mcp = new McpServer({ name: "task-fleet", version: "1.0.0" }, { logger: settings.logger, tasks });
  mcp.tool("rollout", { input: z.object({ service: z.string() }), task: "required" }, async (args, ctx) => {
    if (!acceptedContent(ctx.inputResponses, "confirm", Confirm)?.confirm) {
      return inputRequired({
        inputRequests: { confirm: elicitForm(`Roll out ${args.service}?`, toElicitationSchema(Confirm)) },
        requestState: "asked",
      });
    }
    hooks.rolling();
    await ctx.sendProgress(1, 2, `rolling out ${args.service}`);
    return hooks.rollout(ctx.signal);
  });
  return {
    mcp,
    tasks,
    runner,
    store,
    close: async () => {
      await runner.close();
      await store.close();
      client.destroy();
      queueClient.destroy();
    },
  };
}
