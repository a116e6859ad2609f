import { McpError } from "../../protocol/errors.js";
import { describeError } from "../../protocol/logger.js";
import type { InputRequests, InputResponses } from "../../protocol/schemas/input-required.js";
import { isTerminalTaskStatus } from "../../protocol/schemas/tasks.js";
import type { RequestContext } from "../context.js";
import type { ResultObject } from "../middleware.js";
import { startTaskSpan } from "../telemetry/task-span.js";
import { mutateTask, openMap, sealMap, type TaskKit, without } from "./task-kit.js";

/** What a task's body holds while it runs. */
export interface TaskControl {
  /** The task's id: a bearer capability for its owner, so never log it. */
  readonly taskId: string;
  /** Aborted when the task is cancelled, from any instance. */
  readonly signal: AbortSignal;
  /**
   * The creating request's context, with the task's signal: the request itself has been answered, so
   * progress and log notifications go nowhere (the extension has none for tasks).
   */
  readonly context: RequestContext;
  /**
   * Asks the client, through the task: it shows `input_required` with these questions until every one
   * is answered by tasks/update, then resumes. Keys are unique over the task's life; rejects with the
   * signal's reason when the task is cancelled meanwhile.
   */
  input(requests: InputRequests): Promise<InputResponses>;
}

/** The work a task does; what it returns is the task's result, what it throws its error. */
export type TaskBody = (task: TaskControl) => Promise<ResultObject>;

class TaskCancelled extends Error {}

/**
 * Runs `body` for a stored task until it settles: its result completes the task, an McpError fails it
 * with that error, any other exception fails it with -32603 (logged here, never sent). A task that was
 * cancelled meanwhile stays cancelled: the first terminal status wins.
 */
export async function runTask(
  kit: TaskKit,
  taskId: string,
  body: TaskBody,
  contextWith: (signal: AbortSignal) => RequestContext,
): Promise<void> {
  const controller = new AbortController();
  const stopWatching = kit.store.watch(taskId, () => {
    kit.store.get(taskId).then(
      (record) => {
        if (!record || record.status === "cancelled") controller.abort(new TaskCancelled("Task cancelled"));
      },
      () => {},
    );
  });
  const used = new Set<string>();
  const control: TaskControl = {
    taskId,
    signal: controller.signal,
    context: contextWith(controller.signal),
    input: (requests) => askThroughTask(kit, taskId, requests, used, controller.signal),
  };
  let outcome: { status: "completed" | "failed"; value: Record<string, unknown> };
  const traced = startTaskSpan();
  try {
    const result = await traced.run(() => body(control));
    outcome = { status: "completed", value: { ...result, resultType: "complete" } };
  } catch (error) {
    if (controller.signal.aborted) outcome = { status: "failed", value: {} };
    else if (error instanceof McpError) outcome = { status: "failed", value: { ...error.toJSON() } };
    else {
      kit.logger.error(describeError(error), "a task's body threw; the task failed with -32603");
      outcome = { status: "failed", value: { ...McpError.internal().toJSON() } };
    }
  } finally {
    stopWatching();
  }
  traced.end(controller.signal.aborted ? "cancelled" : outcome.status);
  if (controller.signal.aborted) return;
  await mutateTask(kit, taskId, (record) =>
    isTerminalTaskStatus(record.status)
      ? undefined
      : {
          ...without(record, "inputRequests", "inputResponses"),
          status: outcome.status,
          outcome: kit.sealer.seal(taskId, outcome.value),
        },
  ).catch((error: unknown) => {
    kit.logger.error(describeError(error), "a task's outcome could not be stored; the task store failed");
  });
}

async function askThroughTask(
  kit: TaskKit,
  taskId: string,
  requests: InputRequests,
  used: Set<string>,
  signal: AbortSignal,
): Promise<InputResponses> {
  const keys = Object.keys(requests);
  if (keys.length === 0) throw new TypeError("task.input needs at least one question");
  for (const key of keys) {
    if (used.has(key))
      throw new TypeError(`task.input: key '${key}' was already asked; keys are unique over a task`);
    used.add(key);
  }
  signal.throwIfAborted();
  const asked = await mutateTask(kit, taskId, (record) => {
    if (isTerminalTaskStatus(record.status)) return undefined;
    const pending = { ...openMap(kit, taskId, record.inputRequests), ...requests };
    return { ...record, status: "input_required", inputRequests: kit.sealer.seal(taskId, pending) };
  });
  if (asked?.status !== "input_required") throw new TaskCancelled("Task cancelled");
  return await new Promise<InputResponses>((resolve, reject) => {
    let settled = false;
    const finish = (error: unknown, value?: InputResponses) => {
      if (settled) return;
      settled = true;
      stop();
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(value as InputResponses);
    };
    const onAbort = () => finish(signal.reason);
    const check = () => {
      takeAnswers(kit, taskId, keys).then(
        (answers) => answers && finish(undefined, answers),
        (error: unknown) => finish(error),
      );
    };
    const stop = kit.store.watch(taskId, check);
    signal.addEventListener("abort", onAbort, { once: true });
    check();
  });
}

/** Takes the answers to `keys` off the task once all of them are in; undefined while some are missing. */
async function takeAnswers(
  kit: TaskKit,
  taskId: string,
  keys: string[],
): Promise<InputResponses | undefined> {
  let taken: InputResponses | undefined;
  await mutateTask(kit, taskId, (record) => {
    taken = undefined;
    const answers = openMap(kit, taskId, record.inputResponses);
    if (!keys.every((key) => Object.hasOwn(answers, key))) return undefined;
    taken = Object.fromEntries(keys.map((key) => [key, answers[key]])) as InputResponses;
    for (const key of keys) delete answers[key];
    return {
      ...without(record, "inputResponses"),
      ...optional("inputResponses", sealMap(kit, taskId, answers)),
    };
  });
  return taken;
}

function optional<K extends string>(key: K, value: Uint8Array | undefined): Partial<Record<K, Uint8Array>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, Uint8Array>);
}
