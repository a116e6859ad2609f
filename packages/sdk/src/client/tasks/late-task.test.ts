import { describe, expect, it } from "vitest";
import { TASKS_EXTENSION } from "../../protocol/schemas/tasks.js";
import { MemoryTaskStore } from "../../server/fleet/memory-task-store.js";
import type { TaskRecord } from "../../server/fleet/task-store.js";
import { Server, Tasks } from "../../server/index.js";
import { aborted, deferred, handle } from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import { sendCancellingLateTask } from "./late-task.js";

const WITH_TASKS = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/** A store that holds each new task back until released, so the CreateTaskResult comes late. */
class GatedStore extends MemoryTaskStore {
  readonly released = deferred();
  override async create(record: TaskRecord) {
    await this.released.promise;
    return super.create(record);
  }
}

function lateServer() {
  const store = new GatedStore();
  const tasks = new Tasks({ store, pollIntervalMs: 10 });
  const server = new Server({ name: "late", version: "1.0.0" }, { tasks });
  const stopped = deferred();
  server.onCallTool((ctx) =>
    tasks.start(ctx, async (task) => {
      await aborted(task.signal);
      stopped.resolve();
      return { content: [] };
    }),
  );
  const send = async (method: string, params: Record<string, unknown>) => {
    const { message } = await handle(server, rpcRequest(method, params, WITH_TASKS));
    if ("error" in message) throw new Error(message.error.message);
    return message.result;
  };
  return { store, stopped, send };
}

describe("sendCancellingLateTask", () => {
  it("rejects with the abort at once, and cancels the task that is answered afterwards", async () => {
    const { store, stopped, send } = lateServer();
    const controller = new AbortController();
    const cancelled: string[] = [];
    const call = sendCancellingLateTask(
      () => send("tools/call", { name: "t" }),
      controller.signal,
      (taskId) => {
        cancelled.push(taskId);
        return send("tasks/cancel", { taskId });
      },
    ).catch((e: unknown) => e);
    controller.abort(new Error("gave up"));
    expect(await call).toMatchObject({ message: "gave up" });
    store.released.resolve();
    await stopped.promise;
    expect(cancelled).toHaveLength(1);
  });

  it("answers as the request does while its signal stays unaborted", async () => {
    const { store, send } = lateServer();
    store.released.resolve();
    const answer = await sendCancellingLateTask(
      () => send("tools/call", { name: "t" }),
      new AbortController().signal,
      () => Promise.reject(new Error("nothing to cancel")),
    );
    expect(answer.resultType).toBe("task");
  });

  it("sends nothing under a signal aborted already", async () => {
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    let sent = 0;
    expect(() =>
      sendCancellingLateTask(
        async () => {
          sent += 1;
          return {};
        },
        controller.signal,
        async () => undefined,
      ),
    ).toThrow("too late");
    expect(sent).toBe(0);
  });
});
