import { McpError } from "../../protocol/errors.js";
import { describeError } from "../../protocol/logger.js";
import type { InputRequests, InputResponses } from "../../protocol/schemas/input-required.js";
import { isTerminalTaskStatus } from "../../protocol/schemas/tasks.js";
import type { RequestContext } from "../context.js";
import type { TaskRecord } from "../fleet/task-store.js";
import type { ResultObject } from "../middleware.js";
import { startTaskSpan } from "../telemetry/task-span.js";
import { mutateTask, openMap, type TaskKit, without } from "./task-kit.js";

/** What a task's body holds while it runs. */
export interface TaskControl {
  /** The task's id: a bearer capability for its owner, so never log it. */
  readonly taskId: string;
  /** Aborted when the task is cancelled, from any instance. */
  readonly signal: AbortSignal;
  /**
   * The creating request's context, with the task's signal: the request itself has been answered, so
   * log notifications go nowhere (the extension has none for tasks), and the message of a progress
   * notification becomes the task's `statusMessage`.
   */
  readonly context: RequestContext;
  /**
   * What an earlier run of this body gave `checkpoint` last, when the task is run again (its worker
   * died, or its store failed mid-run); undefined on the first run.
   */
  readonly resumed: unknown;
  /**
   * Asks the client, through the task: it shows `input_required` with these questions until every one
   * is answered by tasks/update, then resumes. Keys are unique over the task's life; a key answered
   * before (by an earlier run of the body) resolves at once with that answer. Rejects with the
   * signal's reason when the task is cancelled meanwhile.
   */
  input(requests: InputRequests): Promise<InputResponses>;
  /** Keeps `value` (JSON, sealed) on the task, for a re-run of the body to resume from (`resumed`). */
  checkpoint(value: unknown): Promise<void>;
  /** Shows `message` as the task's `statusMessage` (never log what a client must not see there). */
  status(message: string): Promise<void>;
}

/** The work a task does; what it returns is the task's result, what it throws its error. */
export type TaskBody = (task: TaskControl) => Promise<ResultObject>;

class TaskCancelled extends Error {}

/**
 * The task store failed while a task ran, so its outcome is not recorded: a runner that can run the
 * task again (on this instance or another) does so once the store answers.
 */
export class TaskStoreFailure extends Error {
  constructor(cause: unknown) {
    super("the task store did not answer while the task ran; its outcome is not recorded", { cause });
    this.name = "TaskStoreFailure";
  }
}

/** What the store's failure in `operation` rejects with, so runTask can tell it from the body's own errors. */
async function storeOp<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    throw error instanceof McpError || error instanceof TaskCancelled ? error : new TaskStoreFailure(error);
  }
}

/**
 * Runs `body` for a stored task until it settles: its result completes the task, an McpError fails it
 * with that error, any other exception fails it with -32603 (logged here, never sent). A task that was
 * cancelled meanwhile stays cancelled: the first terminal status wins, and a task that has ended is
 * not run again. Rejects with TaskStoreFailure, recording nothing, when the store failed under the
 * body or for its outcome: the task is still `working`, to be run again.
 */
export async function runTask(
  kit: TaskKit,
  taskId: string,
  body: TaskBody,
  contextWith: (signal: AbortSignal, status: (message: string) => Promise<void>) => RequestContext,
  /** The task as just read or created, which spares reading it again. */
  read?: TaskRecord,
): Promise<void> {
  const stored = read ?? (await storeOp(kit.store.get(taskId)));
  if (!stored || isTerminalTaskStatus(stored.status)) return;
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
  const status = (message: string) => setStatusMessage(kit, taskId, message);
  const control: TaskControl = {
    taskId,
    signal: controller.signal,
    context: contextWith(controller.signal, status),
    resumed: stored.checkpoint ? kit.sealer.open(taskId, stored.checkpoint) : undefined,
    input: (requests) => askThroughTask(kit, taskId, requests, used, controller.signal),
    checkpoint: (value) => keepCheckpoint(kit, taskId, value),
    status,
  };
  let outcome: { status: "completed" | "failed"; value: Record<string, unknown> };
  const traced = startTaskSpan();
  try {
    const result = await traced.run(() => body(control));
    outcome = { status: "completed", value: { ...result, resultType: "complete" } };
  } catch (error) {
    if (controller.signal.aborted) outcome = { status: "failed", value: {} };
    else if (error instanceof TaskStoreFailure) {
      traced.end("failed");
      throw error;
    } else if (error instanceof McpError) outcome = { status: "failed", value: { ...error.toJSON() } };
    else {
      kit.logger.error(describeError(error), "a task's body threw; the task failed with -32603");
      outcome = { status: "failed", value: { ...McpError.internal().toJSON() } };
    }
  } finally {
    stopWatching();
  }
  traced.end(controller.signal.aborted ? "cancelled" : outcome.status);
  if (controller.signal.aborted) return;
  await storeOp(
    mutateTask(kit, taskId, (record) =>
      isTerminalTaskStatus(record.status)
        ? undefined
        : {
            ...without(record, "inputRequests", "inputResponses", "call", "checkpoint"),
            status: outcome.status,
            outcome: kit.sealer.seal(taskId, outcome.value),
          },
    ),
  );
}

async function setStatusMessage(kit: TaskKit, taskId: string, message: string): Promise<void> {
  await storeOp(
    mutateTask(kit, taskId, (record) =>
      isTerminalTaskStatus(record.status) || record.statusMessage === message
        ? undefined
        : { ...record, statusMessage: message },
    ),
  );
}

async function keepCheckpoint(kit: TaskKit, taskId: string, value: unknown): Promise<void> {
  await storeOp(
    mutateTask(kit, taskId, (record) =>
      isTerminalTaskStatus(record.status)
        ? undefined
        : { ...record, checkpoint: kit.sealer.seal(taskId, value) },
    ),
  );
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
  let answered: InputResponses | undefined;
  const asked = await storeOp(
    mutateTask(kit, taskId, (record) => {
      answered = answersTo(kit, record, keys);
      if (answered || isTerminalTaskStatus(record.status)) return undefined;
      const pending = { ...openMap(kit, taskId, record.inputRequests), ...requests };
      return { ...record, status: "input_required", inputRequests: kit.sealer.seal(taskId, pending) };
    }),
  );
  // Answered before this run asked: an earlier run of the body asked the same question.
  if (answered) return answered;
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
      storeOp(kit.store.get(taskId)).then(
        (record) => {
          const answers = record && answersTo(kit, record, keys);
          if (answers) finish(undefined, answers);
        },
        (error: unknown) => finish(error),
      );
    };
    const stop = kit.store.watch(taskId, check);
    signal.addEventListener("abort", onAbort, { once: true });
    check();
  });
}

/**
 * The answers to `keys` once all of them are in; undefined while some are missing. They stay on the
 * task until it ends, so that a re-run of its body asking them again has them at once.
 */
function answersTo(kit: TaskKit, record: TaskRecord, keys: string[]): InputResponses | undefined {
  const answers = openMap(kit, record.taskId, record.inputResponses);
  if (!keys.every((key) => Object.hasOwn(answers, key))) return undefined;
  return Object.fromEntries(keys.map((key) => [key, answers[key]])) as InputResponses;
}
