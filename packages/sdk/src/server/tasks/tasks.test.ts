import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { elicitForm } from "../../protocol/input-required.js";
import { TASKS_EXTENSION } from "../../protocol/schemas/tasks.js";
import {
  aborted,
  deferred,
  errorOf,
  handle,
  recordingLogger,
  resultOf,
  start,
} from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import type { AuthInfo } from "../auth-info.js";
import { MemoryTaskStore } from "../fleet/memory-task-store.js";
import { Server } from "../server.js";
import type { TaskBody } from "./task-run.js";
import { Tasks, type TasksOptions } from "./tasks.js";

const WITH_TASKS = { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };
const ALICE: AuthInfo = {
  token: "t-alice",
  clientId: "app",
  issuer: "https://idp",
  subject: "alice",
  scopes: [],
};
const MALLORY: AuthInfo = { ...ALICE, token: "t-mallory", subject: "mallory" };

/** A server whose one tool runs `body` as a task when the client declared the extension. */
function taskServer(body: TaskBody, options: TasksOptions = {}) {
  const logger = recordingLogger();
  const store = new MemoryTaskStore(options.now ? { now: options.now } : {});
  const tasks = new Tasks({ store, logger, pollIntervalMs: 250, ...options });
  const server = new Server({ name: "tasks-test", version: "1.0.0" }, { logger, tasks });
  server.onCallTool((ctx) => tasks.start(ctx, body));
  return { server, logger, store };
}

async function callTool(server: Server, auth?: AuthInfo) {
  const handled = await handle(server, rpcRequest("tools/call", { name: "job", arguments: {} }, WITH_TASKS), {
    ...(auth ? { auth } : {}),
  });
  return resultOf(handled);
}

function taskRequest(server: Server, method: string, params: Record<string, unknown>, auth?: AuthInfo) {
  return handle(server, rpcRequest(method, params, WITH_TASKS), auth ? { auth } : {});
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function statusOf(server: Server, taskId: unknown, auth?: AuthInfo) {
  return resultOf(await taskRequest(server, "tasks/get", { taskId }, auth));
}

async function settled(server: Server, taskId: unknown, status: string, auth?: AuthInfo) {
  let last: Record<string, unknown> = {};
  await until(async () => {
    last = await statusOf(server, taskId, auth);
    return last.status === status;
  });
  return last;
}

describe("Tasks on the low-level server", () => {
  it("advertises the extension under capabilities.extensions", async () => {
    const { server } = taskServer(async () => ({ content: [] }));
    const discovered = resultOf(await handle(server, rpcRequest("server/discover")));
    expect((discovered.capabilities as Record<string, unknown>).extensions).toEqual({
      [TASKS_EXTENSION]: {},
    });
  });

  it("answers a flat CreateTaskResult, then the result inlined on tasks/get", async () => {
    const release = deferred();
    const { server } = taskServer(async () => {
      await release.promise;
      return { content: [{ type: "text", text: "done" }] };
    });
    const created = await callTool(server);
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 3_600_000,
      pollIntervalMs: 250,
    });
    expect(created).not.toHaveProperty("requestState");
    expect(await statusOf(server, created.taskId)).toMatchObject({
      resultType: "complete",
      status: "working",
    });
    release.resolve();
    const done = await settled(server, created.taskId, "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "done" }], resultType: "complete" });
  });

  it("refuses the task methods with -32021 to a client that did not declare the extension", async () => {
    const { server } = taskServer(async () => ({ content: [] }));
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const error = errorOf(await handle(server, rpcRequest(method, { taskId: "x", inputResponses: {} })));
      expect(error.code).toBe(-32021);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
    const call = errorOf(await handle(server, rpcRequest("tools/call", { name: "job", arguments: {} })));
    expect(call.code).toBe(-32021);
  });

  it("answers another principal exactly as it answers an id that never existed", async () => {
    const { server } = taskServer(async () => ({ content: [] }));
    const created = await callTool(server, ALICE);
    const foreign = errorOf(await taskRequest(server, "tasks/get", { taskId: created.taskId }, MALLORY));
    const unknown = errorOf(await taskRequest(server, "tasks/get", { taskId: "no-such-task" }, MALLORY));
    expect(foreign).toEqual(unknown);
    expect(foreign.code).toBe(-32602);
    const cancel = errorOf(await taskRequest(server, "tasks/cancel", { taskId: created.taskId }, MALLORY));
    expect(cancel).toEqual(unknown);
    expect((await statusOf(server, created.taskId, ALICE)).taskId).toBe(created.taskId);
  });

  it("asks through the task, takes a partial answer, refuses a malformed one and resumes once all are in", async () => {
    const { server, store, logger } = taskServer(async (task) => {
      const answers = await task.input({
        first: elicitForm("First?", { type: "object", properties: { name: { type: "string" } } }),
        second: elicitForm("Second?", { type: "object", properties: { name: { type: "string" } } }),
      });
      return { content: [{ type: "text", text: JSON.stringify(answers) }] };
    });
    const { taskId } = await callTool(server);
    const asking = await settled(server, taskId, "input_required");
    expect(Object.keys(asking.inputRequests as object)).toEqual(["first", "second"]);

    const bad = errorOf(
      await taskRequest(server, "tasks/update", { taskId, inputResponses: { first: { action: "maybe" } } }),
    );
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("inputResponses.first");
    expect(Object.keys((await statusOf(server, taskId)).inputRequests as object)).toEqual([
      "first",
      "second",
    ]);

    const secret = "secret-answer-7f3a";
    const ack = resultOf(
      await taskRequest(server, "tasks/update", {
        taskId,
        inputResponses: { first: { action: "accept", content: { name: secret } }, stray: { ignored: true } },
      }),
    );
    expect(ack).toMatchObject({ resultType: "complete" });
    expect(ack).not.toHaveProperty("taskId");
    const partial = await statusOf(server, taskId);
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests as object)).toEqual(["second"]);
    const stored = await store.get(String(taskId));
    expect(Buffer.from(stored?.inputResponses ?? []).toString("latin1")).not.toContain(secret);

    await taskRequest(server, "tasks/update", {
      taskId,
      inputResponses: { second: { action: "accept", content: { name: "bob" } } },
    });
    const done = await settled(server, taskId, "completed");
    expect(JSON.stringify(done.result)).toContain(secret);
    expect(JSON.stringify(logger.records)).not.toContain(secret);
    expect(JSON.stringify(logger.records)).not.toContain(String(taskId));
  });

  it("cancels: aborts the body's signal, settles as cancelled and acknowledges again once ended", async () => {
    const stopped = deferred();
    const { server } = taskServer(async (task) => {
      await aborted(task.signal);
      stopped.resolve();
      return { content: [{ type: "text", text: "too late" }] };
    });
    const { taskId } = await callTool(server);
    const ack = resultOf(await taskRequest(server, "tasks/cancel", { taskId }));
    expect(Object.keys(ack).filter((key) => key !== "_meta")).toEqual(["resultType"]);
    await stopped.promise;
    expect((await settled(server, taskId, "cancelled")).result).toBeUndefined();
    expect(resultOf(await taskRequest(server, "tasks/cancel", { taskId })).resultType).toBe("complete");
    expect((await statusOf(server, taskId)).status).toBe("cancelled");
  });

  it("fails with the body's McpError, and with -32603 for any other exception, logged without the detail sent", async () => {
    const failing = taskServer(async () => {
      throw McpError.invalidParams("the upstream job was rejected");
    });
    const first = await callTool(failing.server);
    const failed = await settled(failing.server, first.taskId, "failed");
    expect(failed.error).toEqual({ code: -32602, message: "the upstream job was rejected" });
    expect(failed).not.toHaveProperty("result");

    const crashing = taskServer(async () => {
      throw new Error("disk on fire");
    });
    const second = await callTool(crashing.server);
    expect((await settled(crashing.server, second.taskId, "failed")).error).toEqual({
      code: -32603,
      message: "Internal error",
    });
    expect(crashing.logger.records.some((record) => record.level === "error")).toBe(true);
  });

  it("forgets a task once its ttlMs has passed", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { server } = taskServer(async () => ({ content: [] }), { ttlMs: 60_000, now: () => now });
    const { taskId } = await callTool(server);
    expect((await statusOf(server, taskId)).ttlMs).toBe(60_000);
    now += 60_000;
    expect(errorOf(await taskRequest(server, "tasks/get", { taskId })).code).toBe(-32602);
  });

  it("refuses a ttlMs or pollIntervalMs that is no positive integer", () => {
    expect(() => new Tasks({ ttlMs: 1.5 })).toThrow(/ttlMs is a positive integer/);
    expect(() => new Tasks({ pollIntervalMs: 0 })).toThrow(/pollIntervalMs is a positive integer/);
  });

  it("tells a subscriptions/listen stream of its own tasks' changes, and of no other principal's", async () => {
    const release = deferred();
    const { server } = taskServer(async () => {
      await release.promise;
      return { content: [{ type: "text", text: "done" }] };
    });
    const mine = await callTool(server, ALICE);
    const theirs = await callTool(server, MALLORY);
    const stop = new AbortController();
    const listening = start(
      server,
      rpcRequest(
        "subscriptions/listen",
        { notifications: { taskIds: [mine.taskId, theirs.taskId] } },
        WITH_TASKS,
      ),
      { auth: ALICE, signal: stop.signal },
    );
    const ack = await listening.notifications.next();
    expect(ack.params?.notifications).toEqual({ taskIds: [mine.taskId] });
    release.resolve();
    const changed = await listening.notifications.next();
    expect(changed).toMatchObject({
      method: "notifications/tasks",
      params: {
        taskId: mine.taskId,
        status: "completed",
        result: { content: [{ type: "text", text: "done" }] },
      },
    });
    await settled(server, theirs.taskId, "completed", MALLORY);
    stop.abort();
    await listening.done;
    expect(listening.notifications.seen.some((message) => message.params?.taskId === theirs.taskId)).toBe(
      false,
    );
  });

  it("refuses task notifications with -32021 to a client that did not declare the extension", async () => {
    const { server } = taskServer(async () => ({ content: [] }));
    const refused = errorOf(
      await handle(server, rpcRequest("subscriptions/listen", { notifications: { taskIds: ["x"] } })),
    );
    expect(refused.code).toBe(-32021);
  });
});
