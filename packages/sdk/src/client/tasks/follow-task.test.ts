import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { TASKS_EXTENSION } from "../../protocol/schemas/tasks.js";
import { Server, Tasks } from "../../server/index.js";
import { aborted, deferred, handle } from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import { ProtocolViolationError, TaskCancelledError } from "../errors.js";
import { followTask, type TaskFollower } from "./follow-task.js";

const WITH_TASKS = { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };

/** A server whose tool runs as a task that waits until it is cancelled. */
function waitingServer() {
  const tasks = new Tasks({ pollIntervalMs: 10 });
  const server = new Server({ name: "waiting", version: "1.0.0" }, { tasks });
  const started = deferred();
  server.onCallTool((ctx) =>
    tasks.start(ctx, async (task) => {
      started.resolve();
      await aborted(task.signal);
      return { content: [] };
    }),
  );
  return { server, started };
}

function follower(server: Server, signal?: AbortSignal): TaskFollower & { sent: string[] } {
  const sent: string[] = [];
  return {
    method: "tools/call",
    signal,
    sent,
    send: async (method, params) => {
      sent.push(method);
      const { message } = await handle(server, rpcRequest(method, params, WITH_TASKS));
      if ("error" in message) throw McpError.fromError(message.error);
      return message.result;
    },
    answer: async () => ({ action: "decline" }),
  };
}

async function create(server: Server) {
  const { message } = await handle(
    server,
    rpcRequest("tools/call", { name: "t", arguments: {} }, WITH_TASKS),
  );
  if ("error" in message) throw new Error("no task was created");
  return message.result;
}

describe("followTask", () => {
  it("throws TaskCancelledError when the task it follows is cancelled by someone else", async () => {
    const { server, started } = waitingServer();
    const created = await create(server);
    await started.promise;
    await handle(server, rpcRequest("tasks/cancel", { taskId: created.taskId }, WITH_TASKS));
    const error = await followTask(created, follower(server)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskCancelledError);
  });

  it("sends tasks/cancel when its signal aborts while it polls", async () => {
    const { server } = waitingServer();
    const created = await create(server);
    const controller = new AbortController();
    const following = follower(server, controller.signal);
    const done = followTask(created, following).catch((e: unknown) => e);
    controller.abort(new Error("stop"));
    expect(await done).toMatchObject({ message: "stop" });
    expect(following.sent.at(-1)).toBe("tasks/cancel");
    const { message } = await handle(server, rpcRequest("tasks/get", { taskId: created.taskId }, WITH_TASKS));
    expect("result" in message && message.result.status).toBe("cancelled");
  });

  it("leaves the task running when told not to cancel it on abort, and reports each status", async () => {
    const { server, started } = waitingServer();
    const created = await create(server);
    await started.promise;
    const controller = new AbortController();
    const statuses: string[] = [];
    const following = {
      ...follower(server, controller.signal),
      cancelOnAbort: false,
      onStatus: (task: { status: string }) => {
        statuses.push(task.status);
        controller.abort(new Error("detach"));
      },
    };
    expect(await followTask(created, following).catch((e: unknown) => e)).toMatchObject({
      message: "detach",
    });
    expect(statuses).toEqual(["working"]);
    expect(following.sent).not.toContain("tasks/cancel");
    const { message } = await handle(server, rpcRequest("tasks/get", { taskId: created.taskId }, WITH_TASKS));
    expect("result" in message && message.result.status).toBe("working");
  });

  it("refuses a CreateTaskResult without a taskId as a protocol violation", async () => {
    const { server } = waitingServer();
    const error = await followTask({ resultType: "task", status: "working" }, follower(server)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProtocolViolationError);
  });
});
