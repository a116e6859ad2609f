import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../src/client/client.js";
import { TaskCancelledError } from "../src/client/errors.js";
import type { TaskHandle } from "../src/client/tasks/task-handle.js";
import { McpError } from "../src/protocol/errors.js";
import { TASKS_EXTENSION } from "../src/protocol/schemas/tasks.js";
import { MemoryTaskStore } from "../src/server/fleet/memory-task-store.js";
import type { TaskRecord } from "../src/server/fleet/task-store.js";
import { type RunningHttpServer, startHttpServer } from "../src/test-support/http.js";
import { deferred } from "../src/test-support/in-process.js";
import { taskHost } from "./support/task-host.js";

/** Tasks taken instead of followed, then followed, polled or cancelled by a fresh client or process. */

const running: RunningHttpServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const open of clients.splice(0)) await open.close();
  for (const server of running.splice(0)) await server.close();
});

/** A client closed after the test, whatever it ends with. */
function kept(client: Client): Client {
  clients.push(client);
  return client;
}

const TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };
const follower = fileURLToPath(new URL("./support/task-follower-main.ts", import.meta.url));

/** The in-memory store, holding each new task back until `release`: its CreateTaskResult waits too. */
class GatedStore extends MemoryTaskStore {
  readonly creating = deferred();
  readonly released = deferred();
  gated = false;
  override async create(record: TaskRecord) {
    if (this.gated) {
      this.creating.resolve();
      await this.released.promise;
    }
    return super.create(record);
  }
}

async function taskServer() {
  const store = new GatedStore();
  const { mcp, started, stopped } = taskHost(store);
  const http = await startHttpServer(mcp.server);
  running.push(http);
  return { url: http.url, http: http.http, store, started, stopped };
}

function client(url: string, name = "Ada"): Client {
  return kept(
    new Client(url, {
      capabilities: TASKS_CAPABILITY,
      onElicit: () => ({ action: "accept", content: { name } }),
    }),
  );
}

async function started(client: Client, tool: string): Promise<TaskHandle> {
  const start = await client.startTool(tool);
  if (start.kind !== "task") throw new Error(`${tool} was not run as a task`);
  return start.task;
}

/** Follows `handle` in a child process, as `roundtrip resume` would from another shell. */
function followInChild(url: string, handle: TaskHandle, answer: string): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, typescriptArgs(follower), {
    env: { ...process.env, TASK_SERVER: url, TASK_HANDLE: JSON.stringify(handle), TASK_ANSWER: answer },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`the follower exited with ${code}: ${out}`));
      else resolve(JSON.parse(out) as Record<string, unknown>);
    });
  });
}

describe("a task taken as a handle and resumed", () => {
  it("hands back the task unfollowed, and a fresh client follows it, answering its question", async () => {
    const { url } = await taskServer();
    const handle = await started(client(url), "greet");
    expect(handle).toMatchObject({ name: "greet", taskId: expect.any(String), ttlMs: expect.any(Number) });
    expect(["working", "input_required"]).toContain(handle.status);
    // The handle is plain JSON: what a caller persists is all the next client needs.
    const persisted = JSON.parse(JSON.stringify(handle)) as TaskHandle;
    const statuses: string[] = [];
    const result = await client(url, "Bo").followTask(persisted, {
      onTaskStatus: (task) => statuses.push(task.status),
    });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Bo!" }]);
    expect(statuses).toContain("input_required");
    expect(statuses.at(-1)).toBe("completed");
  });

  it("is resumed by another process, which answers the question and gets the result", async () => {
    const { url } = await taskServer();
    const handle = await started(client(url), "greet");
    const outcome = await followInChild(url, handle, "Cy");
    expect(outcome).toEqual({
      result: expect.objectContaining({ content: [{ type: "text", text: "Hello, Cy!" }] }),
    });
  });

  it("returns a tool that is not run as a task as a complete result", async () => {
    const { url } = await taskServer();
    const plain = kept(new Client(url, { onElicit: () => ({ action: "accept", content: { name: "Di" } }) }));
    const start = await plain.startTool("greet");
    expect(start).toEqual({
      kind: "complete",
      result: expect.objectContaining({ content: [{ type: "text", text: "Hello, Di!" }] }),
    });
  });

  it("throws a failed task's error from followTask, as the followed call does", async () => {
    const { url } = await taskServer();
    const handle = await started(client(url), "crash");
    const error = await client(url)
      .followTask(handle)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe("the job cannot run today");
  });

  it("cancels a task by its id; following it then throws TaskCancelledError", async () => {
    const { url, started: running, stopped } = await taskServer();
    const handle = await started(client(url), "wait");
    await running.promise;
    const other = client(url);
    expect((await other.getTask(handle.taskId)).status).toBe("working");
    await other.cancelTask(handle.taskId);
    await stopped.promise;
    expect((await other.getTask(handle.taskId)).status).toBe("cancelled");
    await expect(other.followTask(handle)).rejects.toBeInstanceOf(TaskCancelledError);
  });

  it("keeps the task running when a call told to keep it aborts, for another client to follow", async () => {
    const { url } = await taskServer();
    const controller = new AbortController();
    let handle: TaskHandle | undefined;
    const first = kept(
      new Client(url, { capabilities: TASKS_CAPABILITY, onElicit: () => new Promise(() => {}) }),
    );
    const call = first
      .callTool(
        "greet",
        {},
        {
          signal: controller.signal,
          taskOnAbort: "keep",
          onTaskStatus: (task) => {
            if (task.status === "input_required") controller.abort(new Error("detached"));
          },
          onTask: (task) => {
            handle = task;
          },
        },
      )
      .catch((e: unknown) => e);
    expect(await call).toMatchObject({ message: "detached" });
    if (!handle) throw new Error("onTask never heard the task");
    expect((await first.getTask(handle.taskId)).status).toBe("input_required");
    const result = await client(url, "Ed").followTask(handle);
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ed!" }]);
  });

  it("cancels the task once its handle arrives when the call was aborted before", async () => {
    const { url, store, stopped } = await taskServer();
    store.gated = true;
    const controller = new AbortController();
    const call = client(url)
      .callTool("wait", {}, { signal: controller.signal })
      .catch((e: unknown) => e);
    // The server is storing the task: its CreateTaskResult has not been sent yet.
    await store.creating.promise;
    controller.abort(new Error("the user gave up"));
    expect(await call).toMatchObject({ message: "the user gave up" });
    store.released.resolve();
    // The task started once stored, and stops only if the late handle was cancelled.
    await stopped.promise;
  });

  it("refuses a handle without a task id, sending nothing", async () => {
    const { url, http } = await taskServer();
    let requests = 0;
    http.on("request", () => {
      requests += 1;
    });
    await expect(client(url).followTask({} as TaskHandle)).rejects.toThrow(/TaskHandle/);
    expect(requests).toBe(0);
    // The count does see what a client sends: the same client's next request reaches the server.
    await client(url)
      .getTask("no-such-task")
      .catch(() => undefined);
    expect(requests).toBeGreaterThan(0);
  });

  it("cancels the task when onTask throws, and the call rejects with onTask's error", async () => {
    const { url, stopped } = await taskServer();
    const refusal = new Error("no room to keep the handle");
    const call = client(url).callTool(
      "wait",
      {},
      {
        onTask: () => {
          throw refusal;
        },
      },
    );
    await expect(call).rejects.toBe(refusal);
    // Nobody follows the task: it stops only because it was cancelled.
    await stopped.promise;
  });

  it("keeps the task running when onTask throws and the call keeps its tasks", async () => {
    const { url, started: running } = await taskServer();
    let handle: TaskHandle | undefined;
    const call = client(url).callTool(
      "wait",
      {},
      {
        taskOnAbort: "keep",
        onTask: (task) => {
          handle = task;
          throw new Error("no room to keep the handle");
        },
      },
    );
    await expect(call).rejects.toThrow("no room to keep the handle");
    await running.promise;
    if (!handle) throw new Error("onTask never heard the task");
    expect((await client(url).getTask(handle.taskId)).status).toBe("working");
  });

  it("holds following while onTaskStatus's promise is pending: the task's question waits for it", async () => {
    const { url } = await taskServer();
    const handle = await started(client(url), "greet");
    // The question is pending before following starts: the first status heard asks it.
    const other = client(url);
    while ((await other.getTask(handle.taskId)).status !== "input_required") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const held = deferred();
    const heard = deferred();
    let released = false;
    let answeredWhileHeld = false;
    const follower = kept(
      new Client(url, {
        capabilities: TASKS_CAPABILITY,
        onElicit: () => {
          if (!released) answeredWhileHeld = true;
          return { action: "accept", content: { name: "Fa" } };
        },
      }),
    );
    const statuses: string[] = [];
    const following = follower.followTask(handle, {
      onTaskStatus: (task) => {
        statuses.push(task.status);
        if (statuses.length > 1) return undefined;
        heard.resolve();
        return held.promise;
      },
    });
    // Handled at once: a follow that fails early fails this test, not the whole run.
    following.catch(() => {});
    await Promise.race([heard.promise, following]);
    // A whole request's round trip: time enough for a follower that did not wait to answer.
    expect((await other.getTask(handle.taskId)).status).toBe("input_required");
    released = true;
    held.resolve();
    expect((await following).content).toEqual([{ type: "text", text: "Hello, Fa!" }]);
    expect(answeredWhileHeld).toBe(false);
    expect(statuses[0]).toBe("input_required");
  });
});
