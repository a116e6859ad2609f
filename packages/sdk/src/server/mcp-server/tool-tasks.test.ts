import { describe, expect, it } from "vitest";
import * as z from "zod";
import { inputRequired } from "../../protocol/input-required.js";
import { TASKS_EXTENSION } from "../../protocol/schemas/tasks.js";
import { errorOf, handle, recordingLogger, resultOf } from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import { Tasks } from "../tasks/tasks.js";
import { McpServer } from "./mcp-server.js";
import { ask, resolver } from "./resolvers/resolvers.js";

const DIRECT = { capabilities: { elicitation: {} } };
const WITH_TASKS = { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };
const Login = z.object({ name: z.string() });

/** One tool body, a resolver asking for the user's name: a direct MRTR call or a task, as the client can. */
function greeter() {
  const mcp = new McpServer(
    { name: "greeter", version: "1.0.0" },
    { logger: recordingLogger(), tasks: new Tasks({ pollIntervalMs: 100 }) },
  );
  const login = resolver(() => ask.elicit("Your name?", Login));
  mcp.tool("greet", { task: "optional", resolve: { login } }, (_args, { login }) => `Hello, ${login.name}!`);
  mcp.tool("count", { task: "required" }, (_args, ctx) =>
    ctx.requestState === undefined
      ? inputRequired({ inputRequests: { n: elicitNumber() }, requestState: "asked" })
      : `counted to ${String((ctx.inputResponses?.n as { content?: { n?: number } })?.content?.n)}`,
  );
  return mcp;
}

function elicitNumber() {
  return {
    method: "elicitation/create" as const,
    params: {
      mode: "form" as const,
      message: "How far?",
      requestedSchema: { type: "object" as const, properties: { n: { type: "number" as const } } },
    },
  };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function taskIn(mcp: McpServer, taskId: unknown, status: string) {
  let last: Record<string, unknown> = {};
  await until(async () => {
    last = resultOf(await handle(mcp.server, rpcRequest("tasks/get", { taskId }, WITH_TASKS)));
    return last.status === status;
  });
  return last;
}

describe("McpServer tools as tasks", () => {
  it("declares task support on the tool's definition", async () => {
    const listed = resultOf(await handle(greeter().server, rpcRequest("tools/list", {}, DIRECT)));
    expect(listed.tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "greet", execution: { taskSupport: "optional" } }),
        expect.objectContaining({ name: "count", execution: { taskSupport: "required" } }),
      ]),
    );
  });

  it("asks directly (input_required on the wire) when the client did not declare the extension", async () => {
    const mcp = greeter();
    const first = resultOf(
      await handle(mcp.server, rpcRequest("tools/call", { name: "greet", arguments: {} }, DIRECT)),
    );
    expect(first.resultType).toBe("input_required");
    const required = errorOf(
      await handle(mcp.server, rpcRequest("tools/call", { name: "count", arguments: {} }, DIRECT)),
    );
    expect(required.code).toBe(-32021);
  });

  it("runs the same body as a task: its question waits on tasks/update, its answer reaches the handler", async () => {
    const mcp = greeter();
    const created = resultOf(
      await handle(mcp.server, rpcRequest("tools/call", { name: "greet", arguments: {} }, WITH_TASKS)),
    );
    expect(created.resultType).toBe("task");
    const asking = await taskIn(mcp, created.taskId, "input_required");
    const [key] = Object.keys(asking.inputRequests as object);
    expect(asking.inputRequests).toMatchObject({ [String(key)]: { params: { message: "Your name?" } } });
    await handle(
      mcp.server,
      rpcRequest(
        "tasks/update",
        {
          taskId: created.taskId,
          inputResponses: { [String(key)]: { action: "accept", content: { name: "Ada" } } },
        },
        WITH_TASKS,
      ),
    );
    const done = await taskIn(mcp, created.taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("keeps a hand-built tool's requestState inside the task across its rounds", async () => {
    const mcp = greeter();
    const created = resultOf(
      await handle(mcp.server, rpcRequest("tools/call", { name: "count", arguments: {} }, WITH_TASKS)),
    );
    await taskIn(mcp, created.taskId, "input_required");
    await handle(
      mcp.server,
      rpcRequest(
        "tasks/update",
        { taskId: created.taskId, inputResponses: { n: { action: "accept", content: { n: 3 } } } },
        WITH_TASKS,
      ),
    );
    const done = await taskIn(mcp, created.taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "counted to 3" }] });
  });

  it("refuses task support on a server without tasks, and a task-only tool with once", () => {
    const bare = new McpServer({ name: "bare", version: "1.0.0" }, { logger: recordingLogger() });
    expect(() => bare.tool("t", { task: "optional" }, () => "x")).toThrow(/has no tasks/);
    const mcp = greeter();
    expect(() => mcp.tool("t", { task: "required", once: true }, () => "x")).toThrow(/drop once: true/);
    expect(() => mcp.tool("u", { task: "sometimes" as "optional" }, () => "x")).toThrow(
      /"optional" or "required"/,
    );
  });
});
