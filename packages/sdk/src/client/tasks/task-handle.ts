import type { CreateTaskResult, GetTaskResult, TaskStatus } from "../../protocol/schemas/tasks.js";

/**
 * What a caller keeps of a task the server answered a tools/call with, to follow, poll or cancel it
 * later, from this client or a fresh one in another process: plain JSON, safe to persist. The taskId is
 * a bearer capability of the principal that created the task: keep it as private as a token.
 */
export interface TaskHandle {
  readonly taskId: string;
  /** The tool the task runs, to check its result against the tool's outputSchema. */
  readonly name: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** The interval the server asked clients to poll at, in milliseconds. */
  readonly pollIntervalMs?: number;
  /** How long from its creation the server keeps the task, in milliseconds; null for ever. */
  readonly ttlMs: number | null;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
}

/** The handle of a task as the server last described it (its CreateTaskResult, or a tasks/get). */
export function taskHandle(name: string, task: CreateTaskResult | GetTaskResult): TaskHandle {
  const { taskId, status, statusMessage, pollIntervalMs, ttlMs, createdAt, lastUpdatedAt } = task;
  return {
    taskId,
    name,
    status,
    ...(statusMessage === undefined ? {} : { statusMessage }),
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    ttlMs,
    createdAt,
    lastUpdatedAt,
  };
}
