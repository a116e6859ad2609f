import * as otel from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { silentLogger } from "../../protocol/logger.js";
import { TASKS_EXTENSION } from "../../protocol/schemas/tasks.js";
import { handle, resultOf } from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import { MemoryTaskStore } from "../fleet/memory-task-store.js";
import { Server } from "../server.js";
import type { TaskBody } from "../tasks/task-run.js";
import { Tasks } from "../tasks/tasks.js";

/**
 * A task's work runs in a span of its own, linked to the tools/call that made it, and ends with the
 * status the task reached; the task id, a bearer capability, is on no span.
 */

const WITH_TASKS = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

function traced(body: TaskBody) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tasks = new Tasks({ store: new MemoryTaskStore(), logger: silentLogger, pollIntervalMs: 250 });
  const server = new Server(
    { name: "tasks-test", version: "1.0.0" },
    { logger: silentLogger, tasks, telemetry: { tracerProvider } },
  );
  server.onCallTool((ctx) => tasks.start(ctx, body));
  return { server, exporter };
}

/** Polls until the task reaches `status`: only the test's own timeout bounds the wait, busy machine or not. */
async function settled(server: Server, taskId: unknown, status: string): Promise<void> {
  for (;;) {
    const task = resultOf(await handle(server, rpcRequest("tasks/get", { taskId }, WITH_TASKS)));
    if (task.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startJob(server: Server): Promise<string> {
  const created = resultOf(
    await handle(server, rpcRequest("tools/call", { name: "job", arguments: {} }, WITH_TASKS)),
  );
  const taskId = (created.task as { taskId?: unknown } | undefined)?.taskId ?? created.taskId;
  expect(taskId).toEqual(expect.any(String));
  return taskId as string;
}

describe("a task's span", () => {
  it("is linked to the tools/call that made it and ends with the task's status", async () => {
    const { server, exporter } = traced(async () => ({ content: [{ type: "text", text: "done" }] }));
    const taskId = await startJob(server);
    await settled(server, taskId, "completed");
    const call = exporter.getFinishedSpans().find((span) => span.name === "tools/call job");
    const task = exporter.getFinishedSpans().find((span) => span.name === "task job");
    expect(call).toBeDefined();
    expect(task?.kind).toBe(otel.SpanKind.INTERNAL);
    expect(task?.parentSpanContext).toBeUndefined();
    expect(task?.links.map((link) => link.context.spanId)).toEqual([call?.spanContext().spanId]);
    expect(task?.attributes).toMatchObject({
      "gen_ai.tool.name": "job",
      "roundtrip.task.status": "completed",
    });
    // tasks/get names its task only by an id that is a bearer capability: no span holds it.
    const gets = exporter.getFinishedSpans().filter((span) => span.name === "tasks/get");
    expect(gets.length).toBeGreaterThan(0);
    expect(JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))).not.toContain(taskId);
  });

  it("ends as failed, with an error status, when the body throws", async () => {
    const { server, exporter } = traced(async () => {
      throw new McpError(-32000, "the job broke");
    });
    const taskId = await startJob(server);
    await settled(server, taskId, "failed");
    const task = exporter.getFinishedSpans().find((span) => span.name === "task job");
    expect(task?.attributes["roundtrip.task.status"]).toBe("failed");
    expect(task?.status.code).toBe(otel.SpanStatusCode.ERROR);
  });
});
