import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { RedisServer, waitFor } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { approveThroughProxy } from "../src/approval.js";
import { Fleet } from "../src/fleet.js";
import { cancelTask, getTask, startTask, type TaskReply, updateTask } from "../src/task-wire.js";

/**
 * `deploy` as a task on a fleet of three real server processes behind nginx, on one real
 * redis-server: the task is a BullMQ job that every instance works on, so the instance that accepted it
 * and the one running it can die (SIGKILL) and the task still completes, once, on another; with Redis stopped, reading a task
 * fails closed in bounded time, and the task completes once Redis is back.
 */
let redis: RedisServer;
let fleet: Fleet;
let alice: string;
/** Long enough to strike in the middle of the rollout, on a busy machine. */
const ROLLOUT_MS = 10_000;
const WITHIN_MS = 120_000;

beforeAll(async () => {
  useDummyAwsEnvironment();
  redis = await RedisServer.start();
  fleet = await Fleet.start(
    {
      size: 3,
      ttlSeconds: 120,
      redisUrl: redis.url,
      // A dead worker's task runs again within seconds, not the default 30.
      settings: { TASK_LOCK_SECONDS: "3", DEPLOY_ROLLOUT_MS: String(ROLLOUT_MS) },
    },
    async (starting) => [await starting.mintKey()],
  );
  alice = await fleet.userToken("alice", "mcp:tools mcp:deploy");
}, 240_000);

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
  vi.unstubAllEnvs();
}, 180_000);

const logLines = () => fleet.instances.flatMap((instance) => instance.lines());
const deployed = (release: string) =>
  logLines().filter((line) => line.msg === "release deployed" && line.release === release);

/** Polls tasks/get through the proxy until `check` holds on the task; the last reply. */
async function taskUntil(taskId: string, what: string, check: (task: Record<string, unknown>) => boolean) {
  let last: TaskReply = { status: 0 };
  await waitFor(
    `the task ${what}`,
    async () => {
      last = await getTask(fleet.publicUrl, alice, taskId);
      return last.result !== undefined && check(last.result);
    },
    WITHIN_MS,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the last tasks/get answered ${JSON.stringify(last)}`);
  });
  return last.result as Record<string, unknown>;
}

const asks = (key: string) => (task: Record<string, unknown>) =>
  task.status === "input_required" && Object.hasOwn((task.inputRequests ?? {}) as object, key);

/**
 * A deploy task through the proxy, confirmed and approved on its page: resolves with its id and its
 * release once the deployment is logged, the rollout under way.
 */
async function deployRollingOut(
  service: string,
  acceptedBy = fleet.publicUrl,
): Promise<{ taskId: string; release: string }> {
  const created = await startTask(acceptedBy, alice, "deploy", { service, env: "staging" });
  expect(created).toMatchObject({ result: { resultType: "task" } });
  const taskId = String(created.result?.taskId);
  await taskUntil(taskId, "asks to confirm", asks("confirm"));
  await updateTask(fleet.publicUrl, alice, taskId, {
    confirm: { action: "accept", content: { confirm: true } },
  });
  const asking = await taskUntil(taskId, "asks for approval", asks("approval#2"));
  const question = (asking.inputRequests as Record<string, { params: { url: string } }>)["approval#2"];
  const url = String(question?.params.url);
  const release = new URL(url).pathname.split("/").pop() ?? "";
  await approveThroughProxy(fleet.publicUrl, url);
  await updateTask(fleet.publicUrl, alice, taskId, { "approval#2": { action: "accept" } });
  await waitFor("the release deployed", async () => deployed(release).length > 0, WITHIN_MS);
  await taskUntil(taskId, "reports its rollout", (task) => /^rolling out/.test(String(task.statusMessage)));
  return { taskId, release };
}

describe("deploy as a durable task on a fleet", () => {
  it("the accepting instance, and the one running the task, are SIGKILLed mid-rollout: another completes it, once", async () => {
    // Created on the first instance directly, so which instance accepted it is known; its work is a
    // BullMQ job any worker may have taken, so the worker running it dies too, wherever it is.
    const accepting = fleet.instances[0];
    const { taskId, release } = await deployRollingOut("ledger", String(accepting?.url));
    const running = fleet.instances.find((instance) =>
      instance.lines().some((line) => line.msg === "release deployed" && line.release === release),
    );
    expect(running).toBeDefined();
    const killed = [...new Set([accepting, running])];
    // Which case this run met: BullMQ gives the job to whichever worker takes it first.
    console.info(
      killed.length === 1
        ? "the accepting instance ran the task itself: one instance killed"
        : "another instance ran the task: the accepting one and the running one killed",
    );
    try {
      for (const instance of killed) await instance?.kill();
      const done = await taskUntil(taskId, "completes", (task) => task.status === "completed");
      const text = JSON.stringify(done.result);
      expect(text).toMatch(
        new RegExp(`(Deployed|already deployed)[^"]*${release}|${release}[^"]*already deployed`),
      );
      expect(deployed(release)).toHaveLength(1);
    } finally {
      // Back for the next test, whatever happened here.
      for (const instance of killed) await instance?.start();
    }
  }, 300_000);

  it("with Redis stopped, tasks/get fails closed in bounded time; once it is back, the task completes", async () => {
    const { taskId, release } = await deployRollingOut("billing");
    await redis.kill("SIGTERM");
    try {
      const reply = await getTask(fleet.publicUrl, alice, taskId);
      expect(reply.error?.code).toBe(-32603);
      expect(reply.error?.message).toMatch(/task store is unavailable, so it could not answer tasks\/get/);
      const created = await startTask(fleet.publicUrl, alice, "deploy", {
        service: "orders",
        env: "staging",
      });
      expect(created.error?.message).toMatch(/task store is unavailable, so it could not create the task/);
    } finally {
      await redis.start();
    }
    await taskUntil(taskId, "completes", (task) => task.status === "completed");
    expect(deployed(release)).toHaveLength(1);
  }, 300_000);

  it("a task cancelled through one instance is seen cancelled by all three", async () => {
    const created = await startTask(fleet.publicUrl, alice, "deploy", { service: "search", env: "staging" });
    const taskId = String(created.result?.taskId);
    await taskUntil(taskId, "asks to confirm", asks("confirm"));
    const [first, ...others] = fleet.instances;
    expect((await cancelTask(String(first?.url), alice, taskId)).result).toBeDefined();
    for (const instance of [first, ...others]) {
      const seen = await getTask(String(instance?.url), alice, taskId);
      expect(seen.result?.status).toBe("cancelled");
    }
  }, 300_000);
});
