import { McpError } from "../../protocol/errors.js";
import type { InputRequest } from "../../protocol/schemas/input-required.js";
import {
  CreateTaskResultSchema,
  type GetTaskResult,
  GetTaskResultSchema,
} from "../../protocol/schemas/tasks.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import { ProtocolViolationError, TaskCancelledError } from "../errors.js";

/** What following a task needs from the call that created it. */
export interface TaskFollower {
  readonly method: string;
  send(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>>;
  /** Answers one of the task's questions, as the call's callbacks answer a round's. */
  answer(
    key: string,
    request: InputRequest,
    round: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown>;
  readonly signal: AbortSignal | undefined;
  /**
   * Hears the task as each tasks/get describes it, before its question is answered or its end is read;
   * a promise it returns holds following (no question answered, no tasks/get sent) until it settles.
   */
  readonly onStatus?: ((task: GetTaskResult) => unknown) | undefined;
  /** Whether an abort of `signal` cancels the task (the default) or leaves it running, to resume later. */
  readonly cancelOnAbort?: boolean | undefined;
}

/** Where following starts: a task's id, and the interval its server asked for, if known. */
export interface TaskToFollow {
  readonly taskId: string;
  readonly pollIntervalMs?: number | undefined;
}

/** How long to wait between two tasks/get when the server suggests nothing. */
const DEFAULT_POLL_MS = 1000;

export function isCreateTaskResult(result: Record<string, unknown>): boolean {
  return result.resultType === "task";
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function parsed<T>(
  follower: TaskFollower,
  what: string,
  schema: {
    safeParse(value: unknown): { success: true; data: T } | { success: false; error: import("zod").ZodError };
  },
  value: unknown,
): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new ProtocolViolationError(what, `${firstIssue(result.error)} (for ${follower.method})`);
  return result.data;
}

/**
 * Follows a task a request was answered with to its end: polls tasks/get at the server's
 * `pollIntervalMs`, answers each new question through the call's callbacks with tasks/update, and
 * returns the task's result; a failed task throws its JSON-RPC error, a cancelled one
 * TaskCancelledError. When the call's signal aborts, the task is cancelled with tasks/cancel first.
 */
export async function followTask(
  created: Record<string, unknown>,
  follower: TaskFollower,
): Promise<Record<string, unknown>> {
  return followTaskId(parsed(follower, "tools/call", CreateTaskResultSchema, created), follower);
}

/** Follows a task known by its id (a handle kept from an earlier call) as followTask does. */
export async function followTaskId(
  task: TaskToFollow,
  follower: TaskFollower,
): Promise<Record<string, unknown>> {
  const { taskId } = task;
  let interval = task.pollIntervalMs ?? DEFAULT_POLL_MS;
  const answered = new Set<string>();
  let round = 1;
  try {
    for (;;) {
      const state: GetTaskResult = parsed(
        follower,
        "tasks/get",
        GetTaskResultSchema,
        await follower.send("tasks/get", { taskId }, follower.signal),
      );
      interval = state.pollIntervalMs ?? interval;
      await follower.onStatus?.(state);
      if (state.status === "completed") return { resultType: "complete", ...state.result };
      if (state.status === "failed") {
        const error = state.error ?? { code: -32603, message: "Internal error" };
        throw new McpError(error.code, error.message, error.data);
      }
      if (state.status === "cancelled") throw new TaskCancelledError(follower.method, state.statusMessage);
      const fresh = Object.entries(state.inputRequests ?? {}).filter(([key]) => !answered.has(key));
      if (state.status === "input_required" && fresh.length > 0) {
        const answers = await Promise.all(
          fresh.map(async ([key, request]) => [
            key,
            await follower.answer(key, request, round, follower.signal),
          ]),
        );
        await follower.send(
          "tasks/update",
          { taskId, inputResponses: Object.fromEntries(answers) },
          follower.signal,
        );
        for (const [key] of fresh) answered.add(key);
        round += 1;
        continue;
      }
      await sleep(interval, follower.signal);
    }
  } catch (error) {
    if (follower.signal?.aborted && follower.cancelOnAbort !== false) {
      // The caller gave up: the server should stop too. Best effort, outside the aborted signal.
      await follower.send("tasks/cancel", { taskId }, undefined).catch(() => undefined);
    }
    throw error;
  }
}
