import type { CreateTaskResult, GetTaskResult, Task } from "../../protocol/schemas/tasks.js";
import type { TaskRecord } from "../fleet/task-store.js";

function taskOf(record: TaskRecord): Task {
  const task: Task = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/** The seed state a tools/call answers with: the task alone, never its payload or any requestState. */
export function createTaskResult(record: TaskRecord): CreateTaskResult {
  return { resultType: "task", ...taskOf(record) };
}

/** What the payload of a task's status is, opened from its record. */
export interface OpenedPayload {
  inputRequests?: Record<string, unknown>;
  outcome?: Record<string, unknown>;
}

/** What tasks/get answers: the task with the payload of its status inlined. */
export function getTaskResult(record: TaskRecord, payload: OpenedPayload): GetTaskResult {
  const result: Record<string, unknown> = { resultType: "complete", ...taskOf(record) };
  if (record.status === "input_required") result.inputRequests = payload.inputRequests ?? {};
  if (record.status === "completed") result.result = payload.outcome ?? {};
  if (record.status === "failed")
    result.error = payload.outcome ?? { code: -32603, message: "Internal error" };
  return result as GetTaskResult;
}
