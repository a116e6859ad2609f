import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { redisCommand } from "@roundtrip/test-services";
import { describe, expect, it } from "vitest";
import { TASKS_EXTENSION } from "../src/protocol/schemas/tasks.js";
import type { McpServer } from "../src/server/mcp-server/mcp-server.js";
import { until } from "../src/server/mcp-server/test-support/once.js";
import { deferred, errorOf, handle, recordingLogger, resultOf } from "../src/test-support/in-process.js";
import { rpcRequest } from "../src/test-support/messages.js";
import { AskingChild } from "./support/asking-child.js";
import { closersAfterEach, redisServerPerFile } from "./support/redis-server.js";
import { type FleetSettings, fleetInstance, type RolloutHooks } from "./support/task-fleet.js";

const redis = redisServerPerFile();
const closers = closersAfterEach();
const WITH_TASKS = { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };
const LOCK_MS = 2000;
const worker = fileURLToPath(new URL("./support/task-worker-main.ts", import.meta.url));

function settings(overrides: Partial<FleetSettings> = {}): FleetSettings {
  return {
    redisUrl: redis().url,
    key: randomBytes(32).toString("hex"),
    prefix: `fleet-${randomBytes(6).toString("hex")}`,
    lockMs: LOCK_MS,
    logger: recordingLogger(),
    ...overrides,
  };
}

async function instance(fleet: FleetSettings, hooks: Partial<RolloutHooks> = {}) {
  const opened = await fleetInstance(fleet, {
    rolling: hooks.rolling ?? (() => {}),
    rollout: hooks.rollout ?? (async () => "rolled out"),
  });
  closers.push(() => opened.close());
  return opened;
}

const request = (mcp: McpServer, method: string, params: Record<string, unknown>) =>
  handle(mcp.server, rpcRequest(method, params, WITH_TASKS));

async function startRollout(mcp: McpServer): Promise<string> {
  const created = resultOf(
    await request(mcp, "tools/call", { name: "rollout", arguments: { service: "web" } }),
  );
  expect(created.status).toBe("working");
  return created.taskId as string;
}

async function settled(mcp: McpServer, taskId: string, status: string) {
  let task: Record<string, unknown> = {};
  await until(async () => {
    task = resultOf(await request(mcp, "tasks/get", { taskId }));
    return task.status === status;
  }, 60_000);
  return task;
}

const CONFIRMED = { confirm: { action: "accept", content: { confirm: true } } };

describe("tasks queued on BullMQ, run by any worker of the fleet", () => {
  it("a task whose worker is SIGKILLed mid-rollout runs again on another worker, resuming after its answer, and completes once", async () => {
    const fleet = settings();
    const child = await AskingChild.start(
      {
        FLEET_REDIS_URL: fleet.redisUrl,
        FLEET_KEY: fleet.key,
        FLEET_PREFIX: fleet.prefix,
        FLEET_LOCK_MS: String(LOCK_MS),
      },
      worker,
    );
    closers.push(() => child.stop());
    // This instance accepts and answers; until the child dies, the child's is the only worker.
    let asked = 0;
    const b = await instance(fleet, {
      rolling: () => {
        asked += 1;
      },
      rollout: async () => "rolled out by b",
    });
    const taskId = await startRollout(b.mcp);
    const waiting = await settled(b.mcp, taskId, "input_required");
    expect(Object.keys(waiting.inputRequests as object)).toEqual(["confirm"]);
    const from = child.mark();
    resultOf(await request(b.mcp, "tasks/update", { taskId, inputResponses: CONFIRMED }));
    await child.waitFor((line) => line.msg === "rolling out", "that it rolls out", from);
    const rolling = await settled(b.mcp, taskId, "working");
    expect(rolling.statusMessage).toBe("rolling out web");
    // SIGKILL: the worker dies holding the job, which BullMQ finds stalled once its lock lapses.
    await child.stop();
    b.runner.work(b.tasks);
    const done = await settled(b.mcp, taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "rolled out by b" }] });
    // Resumed after the confirmation: the question was not asked again, the rollout ran once here.
    expect(asked).toBe(1);
  }, 180_000);

  it("a task cancelled from one instance aborts its body on the worker running it, and all see it cancelled", async () => {
    // No worker dies here: the job's lock outlasts any stall of a busy worker, so it never runs twice.
    const fleet = settings({ lockMs: 60_000 });
    const running = deferred();
    const aborted = deferred();
    const a = await instance(fleet, {
      rolling: () => running.resolve(),
      rollout: (signal) =>
        new Promise<string>((_resolve, reject) => {
          const stop = () => {
            aborted.resolve();
            reject(signal.reason);
          };
          // The cancel may land while the body reports its status, before it gets here.
          if (signal.aborted) stop();
          else signal.addEventListener("abort", stop);
        }),
    });
    const b = await instance(fleet);
    const c = await instance(fleet);
    a.runner.work(a.tasks);
    const taskId = await startRollout(b.mcp);
    await settled(c.mcp, taskId, "input_required");
    resultOf(await request(c.mcp, "tasks/update", { taskId, inputResponses: CONFIRMED }));
    await running.promise;
    resultOf(await request(b.mcp, "tasks/cancel", { taskId }));
    await aborted.promise;
    for (const each of [a, b, c]) {
      expect(resultOf(await request(each.mcp, "tasks/get", { taskId })).status).toBe("cancelled");
    }
  }, 120_000);

  it("fails closed while Redis does not answer: tools/call queues nothing, tasks/get errs, both in bounded time", async () => {
    // Short enough that the frozen calls fail soon, long enough that no live command times out on a slow machine.
    const fleet = settings({ timeoutMs: 1500 });
    const a = await instance(fleet);
    a.runner.work(a.tasks);
    const taskId = await startRollout(a.mcp);
    await settled(a.mcp, taskId, "input_required");
    // The jobs queued: one per task, named by a digest of its id.
    const jobs = async () =>
      ((await redisCommand(redis().url, ["KEYS", `${fleet.prefix}:bull:*`])) as string[])
        .filter((key) => /:roundtrip-tasks:[\w-]{43}$/.test(key))
        .sort();
    const before = await jobs();
    expect(before).toHaveLength(1);
    const server = redis();
    server.freeze();
    try {
      const call = errorOf(
        await request(a.mcp, "tools/call", { name: "rollout", arguments: { service: "api" } }),
      );
      expect(call.code).toBe(-32603);
      expect(call.message).toMatch(
        /task store is unavailable, so it could not create the task; nothing was changed/,
      );
      const get = errorOf(await request(a.mcp, "tasks/get", { taskId }));
      expect(get.message).toMatch(/task store is unavailable, so it could not answer tasks\/get/);
    } finally {
      server.thaw();
    }
    // Back: nothing was queued meanwhile (a record whose create Redis ran on waking has an id no one
    // was given, and no job), the task is where it was, and completes once answered.
    expect(await jobs()).toEqual(before);
    await until(async () => {
      const reply = await request(a.mcp, "tasks/get", { taskId });
      return reply.message !== undefined && "result" in reply.message;
    }, 30_000);
    resultOf(await request(a.mcp, "tasks/update", { taskId, inputResponses: CONFIRMED }));
    const done = await settled(a.mcp, taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ text: "rolled out" }] });
  }, 120_000);
});
