import { randomBytes } from "node:crypto";
import { RedisCluster, redisCommand } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elicitForm } from "../src/protocol/input-required.js";
import { TASKS_EXTENSION } from "../src/protocol/schemas/tasks.js";
import type { RedisBusClient } from "../src/server/fleet/redis/redis-notification-bus.js";
import { RedisTaskStore } from "../src/server/fleet/redis/redis-task-store.js";
import {
  connectedClient,
  connectedCluster,
} from "../src/server/fleet/redis/test-support/connected-client.js";
import type { TaskRecord } from "../src/server/fleet/task-store.js";
import { until } from "../src/server/mcp-server/test-support/once.js";
import { Server } from "../src/server/server.js";
import { Tasks } from "../src/server/tasks/tasks.js";
import { handle, recordingLogger, resultOf } from "../src/test-support/in-process.js";
import { rpcRequest } from "../src/test-support/messages.js";
import { closersAfterEach, redisServerPerFile } from "./support/redis-server.js";

const redis = redisServerPerFile();
const closers = closersAfterEach();
const unique = () => Math.random().toString(36).slice(2);
const WITH_TASKS = { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };

type Client = RedisBusClient & { destroy(): unknown };
type Connect = () => Promise<Client>;

function record(overrides: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId: unique(),
    principal: "anonymous",
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    revision: 0,
    ...overrides,
  };
}

/** A store on its own client, as one instance of a fleet has it; closed after the test. */
async function openedStore(connect: Connect, prefix: string, timeoutMs = 2000) {
  const client = await connect();
  const store = new RedisTaskStore({ client, prefix, rereadMs: 60_000, timeoutMs });
  closers.push(
    () => client.destroy(),
    () => store.close(),
  );
  return store;
}

function storeScenarios(connect: Connect) {
  it("keeps a record with its sealed bytes, refuses a taken id, and one of two racing writers wins", async () => {
    const store = await openedStore(connect, `t:${unique()}:`);
    const sealed = new Uint8Array(randomBytes(40));
    const created = record({ outcome: sealed, statusMessage: "rolling out", pollIntervalMs: 500 });
    await store.create(created);
    await expect(store.create(created)).rejects.toThrow(/already taken/);
    const read = (await store.get(created.taskId)) as TaskRecord;
    expect(read).toEqual(created);
    expect(await store.compareAndSet(read, { ...read, status: "cancelled" })).toBe(true);
    expect(await store.compareAndSet(read, { ...read, status: "completed" })).toBe(false);
    expect(await store.compareAndSet(read, { ...read, taskId: "other" })).toBe(false);
    expect(await store.get(created.taskId)).toMatchObject({ status: "cancelled", revision: 1 });
    expect(await store.get("never-made")).toBeUndefined();
  });

  it("tells a watcher on another instance of each change, until it stops watching", async () => {
    const prefix = `t:${unique()}:`;
    const [a, b] = [await openedStore(connect, prefix), await openedStore(connect, prefix)];
    const task = record();
    await a.create(task);
    let heard = 0;
    const stop = b.watch(task.taskId, () => {
      heard += 1;
    });
    // The subscription is under way: change until one is heard.
    let current = task;
    await until(async () => {
      const next = { ...current, statusMessage: unique() };
      if (await a.compareAndSet(current, next)) current = { ...next, revision: current.revision + 1 };
      return heard > 0;
    }, 10_000);
    stop();
    const before = heard;
    await a.compareAndSet(current, { ...current, status: "completed" });
    // Another watcher on `a`'s side hears the change; `b`'s stopped one must not have.
    const heardByA = new Promise<void>((resolve) => {
      const stopA = a.watch(task.taskId, () => {
        stopA();
        resolve();
      });
    });
    const latest = (await a.get(task.taskId)) as TaskRecord;
    await a.compareAndSet(latest, { ...latest, statusMessage: "done" });
    await heardByA;
    expect(heard).toBe(before);
  });

  it("forgets a task once its ttlMs has passed, and keeps one whose ttlMs is null", async () => {
    const store = await openedStore(connect, `t:${unique()}:`);
    const brief = record({ ttlMs: 300 });
    const forever = record({ ttlMs: null });
    await store.create(brief);
    await store.create(forever);
    await until(async () => (await store.get(brief.taskId)) === undefined, 10_000);
    expect(await store.get(forever.taskId)).toBeDefined();
    // The id of an expired task is free again.
    await store.create({ ...brief, createdAt: Date.now() });
  });
}

describe("RedisTaskStore on one redis-server", () => {
  const connect: Connect = async () => {
    const client: Client = await connectedClient(redis().url);
    return client;
  };

  storeScenarios(connect);

  it("keeps neither the task id nor anything unsealed in Redis", async () => {
    const prefix = `t:${unique()}:`;
    const store = await openedStore(connect, prefix);
    const task = record({ taskId: `secret-${unique()}`, principal: "alice" });
    await store.create(task);
    const keys = (await redisCommand(redis().url, ["KEYS", `${prefix}*`])) as string[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(task.taskId);
    const stored = JSON.stringify(await redisCommand(redis().url, ["HGETALL", keys[0] as string]));
    expect(stored).not.toContain(task.taskId);
    const ttl = Number(await redisCommand(redis().url, ["PTTL", keys[0] as string]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("runs a task across two instances: asked on one, answered and read on the other, cancelled from either", async () => {
    const prefix = `t:${unique()}:`;
    const key = randomBytes(32);
    const servers = await Promise.all(
      ["a", "b"].map(async () => {
        const logger = recordingLogger();
        const store = await openedStore(connect, prefix);
        const tasks = new Tasks({ store, key, logger, pollIntervalMs: 50 });
        const server = new Server({ name: "fleet", version: "1.0.0" }, { logger, tasks });
        server.onCallTool((ctx) =>
          tasks.start(ctx, async (task) => {
            const answers = await task.input({ go: elicitForm("Go?", { type: "object", properties: {} }) });
            return { content: [{ type: "text", text: `answered ${JSON.stringify(answers.go)}` }] };
          }),
        );
        return server;
      }),
    );
    const [a, b] = servers as [Server, Server];
    const request = (server: Server, method: string, params: Record<string, unknown>) =>
      handle(server, rpcRequest(method, params, WITH_TASKS));
    const created = resultOf(await request(a, "tools/call", { name: "job", arguments: {} }));
    const taskId = created.taskId as string;
    let task: Record<string, unknown> = {};
    await until(async () => {
      task = resultOf(await request(b, "tasks/get", { taskId }));
      return task.status === "input_required";
    }, 10_000);
    expect(Object.keys(task.inputRequests as object)).toEqual(["go"]);
    const answer = { action: "accept", content: {} };
    resultOf(await request(b, "tasks/update", { taskId, inputResponses: { go: answer } }));
    await until(async () => {
      task = resultOf(await request(b, "tasks/get", { taskId }));
      return task.status === "completed";
    }, 10_000);
    expect(task.result).toMatchObject({ content: [{ text: `answered ${JSON.stringify(answer)}` }] });

    const second = resultOf(await request(b, "tools/call", { name: "job", arguments: {} }));
    resultOf(await request(a, "tasks/cancel", { taskId: second.taskId }));
    for (const server of servers) {
      expect(resultOf(await request(server, "tasks/get", { taskId: second.taskId })).status).toBe(
        "cancelled",
      );
    }
  });

  it("fails closed in bounded time while Redis does not answer, and serves again once it does", async () => {
    const prefix = `t:${unique()}:`;
    // Only the calls made while Redis is frozen are held to 300 ms; the one before has its default.
    const store = await openedStore(connect, prefix, 300);
    const task = record();
    await (await openedStore(connect, prefix)).create(task);
    const server = redis();
    server.freeze();
    try {
      await expect(store.get(task.taskId)).rejects.toThrow(/did not answer within 300 ms/);
      await expect(store.create(record())).rejects.toThrow(/did not answer within 300 ms/);
    } finally {
      server.thaw();
    }
    await until(async () => (await store.get(task.taskId).catch(() => undefined)) !== undefined, 10_000);
  });
});

describe("RedisTaskStore on a Redis Cluster of three masters", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
  }, 120_000);
  afterAll(() => cluster?.stop());
  const connect: Connect = async () => {
    const client: Client = await connectedCluster(cluster.urls);
    return client;
  };

  storeScenarios(connect);

  it("spreads tasks over every master, each task's commands to its one slot", async () => {
    const store = await openedStore(connect, `t:${unique()}:`);
    for (let i = 0; i < 30; i++) {
      const task = record();
      await store.create(task);
      const read = (await store.get(task.taskId)) as TaskRecord;
      expect(await store.compareAndSet(read, { ...read, status: "completed" })).toBe(true);
    }
    const held = await Promise.all(cluster.urls.map((url) => redisCommand(url, ["DBSIZE"])));
    expect(held.every((count) => Number(count) > 0)).toBe(true);
  });
});
