import { McpError } from "../../protocol/errors.js";
import { SERVER_REQUESTS, type ServerRequestMethod } from "../../protocol/methods.js";
import {
  isTerminalTaskStatus,
  type TaskIdParams,
  type UpdateTaskParams,
} from "../../protocol/schemas/tasks.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { TaskRecord } from "../fleet/task-store.js";
import type { ResultObject } from "../middleware.js";
import { mutateTask, openMap, sealMap, type TaskKit, without } from "./task-kit.js";
import { getTaskResult } from "./task-wire.js";

/**
 * One answer for an unknown task and for another principal's: a caller learns nothing about ids that
 * are not its own.
 */
function taskNotFound(): McpError {
  return McpError.invalidParams(
    "Task not found: no task with this taskId is visible to this client (it never existed, belongs to another principal, or its ttlMs has passed); use the taskId a tools/call answered you",
  );
}

/** The caller's own task, or the not-found error. */
export async function ownTask(kit: TaskKit, taskId: string, principal: string): Promise<TaskRecord> {
  const record = await kit.store.get(taskId);
  if (!record || record.principal !== principal) throw taskNotFound();
  return record;
}

/** The task with its payload opened and inlined, as tasks/get answers it. */
export function detailedTask(kit: TaskKit, record: TaskRecord): ResultObject {
  return getTaskResult(record, {
    inputRequests: openMap(kit, record.taskId, record.inputRequests),
    outcome: openMap(kit, record.taskId, record.outcome),
  });
}

export async function getTask(kit: TaskKit, params: TaskIdParams, principal: string): Promise<ResultObject> {
  return detailedTask(kit, await ownTask(kit, params.taskId, principal));
}

const ACK: ResultObject = { resultType: "complete" };

/** A client's answer must fit the question it answers; anything else is refused before anything changes. */
function checkAnswer(key: string, question: unknown, answer: unknown): void {
  const method = (question as { method?: string }).method as ServerRequestMethod;
  const parsed = SERVER_REQUESTS[method]?.result.safeParse(answer);
  if (parsed && !parsed.success) {
    throw McpError.invalidParams(
      `Invalid inputResponses.${key}: not a ${method} result (${firstIssue(parsed.error)}); answer it as the task's inputRequests.${key} asks`,
    );
  }
}

/**
 * Files the answers to questions the task is waiting on, and drops the answered questions; answers
 * under any other key are ignored. Once no question is left the task is working again.
 */
export async function updateTask(
  kit: TaskKit,
  params: UpdateTaskParams,
  principal: string,
): Promise<ResultObject> {
  const { taskId } = await ownTask(kit, params.taskId, principal);
  await mutateTask(kit, taskId, (record) => {
    if (record.status !== "input_required") return undefined;
    const pending = openMap(kit, taskId, record.inputRequests);
    const answered = Object.keys(params.inputResponses).filter((key) => Object.hasOwn(pending, key));
    if (answered.length === 0) return undefined;
    const answers = openMap(kit, taskId, record.inputResponses);
    for (const key of answered) {
      checkAnswer(key, pending[key], params.inputResponses[key]);
      answers[key] = params.inputResponses[key];
      delete pending[key];
    }
    const base = without(record, "inputRequests", "inputResponses");
    const stillAsking = sealMap(kit, taskId, pending);
    const filed = sealMap(kit, taskId, answers);
    return {
      ...base,
      status: stillAsking ? "input_required" : "working",
      ...(stillAsking ? { inputRequests: stillAsking } : {}),
      ...(filed ? { inputResponses: filed } : {}),
    };
  });
  return ACK;
}

/** Cancels a task that has not ended; the same acknowledgement for one that has. */
export async function cancelTask(
  kit: TaskKit,
  params: TaskIdParams,
  principal: string,
): Promise<ResultObject> {
  const { taskId } = await ownTask(kit, params.taskId, principal);
  await mutateTask(kit, taskId, (record) =>
    isTerminalTaskStatus(record.status)
      ? undefined
      : { ...without(record, "inputRequests", "inputResponses", "call", "checkpoint"), status: "cancelled" },
  );
  return ACK;
}
