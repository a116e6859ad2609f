import { randomBytes } from "node:crypto";
import type { RequestStateCodec } from "@roundtrip/sealing";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { describeError, type Logger, stderrLogger } from "../../protocol/logger.js";
import {
  EXTENSION_REQUESTS,
  type ExtensionRequestMethod,
  isExtensionRequestMethod,
} from "../../protocol/methods.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";
import type { CallToolParams } from "../../protocol/schemas/request-params.js";
import {
  type CreateTaskResult,
  isTerminalTaskStatus,
  TASKS_EXTENSION,
  type TaskIdParams,
  type UpdateTaskParams,
} from "../../protocol/schemas/tasks.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { AuthInfo } from "../auth-info.js";
import type { RequestContext } from "../context.js";
import { MemoryTaskStore } from "../fleet/memory-task-store.js";
import type { TaskRecord, TaskStore } from "../fleet/task-store.js";
import type { ResultObject } from "../middleware.js";
import { checkParamsLimits, type ParamsLimits } from "../params-limits.js";
import { principalOf } from "../principal.js";
import { type TaskCall, taskCallOf, taskContext } from "./task-call.js";
import { mutateTask, type TaskKit, without } from "./task-kit.js";
import { cancelTask, detailedTask, getTask, updateTask } from "./task-requests.js";
import { runTask, type TaskBody, type TaskControl } from "./task-run.js";
import type { TaskRunner } from "./task-runner.js";
import { TaskSealer } from "./task-sealer.js";
import { createTaskResult } from "./task-wire.js";

export interface TasksOptions {
  /** Where tasks live; by default this process's memory. A fleet shares one store (and `key`). */
  store?: TaskStore;
  /** 32 bytes that seal what the store keeps; by default one made for this process. */
  key?: Uint8Array;
  /**
   * Seals what the store keeps with these request-state keys instead of `key` (a server's
   * `security.codec`): one set of keys, rotated together, for a fleet's requestState and its tasks.
   */
  codec?: RequestStateCodec;
  /** How long a task is kept from its creation, in integer milliseconds; null for ever. Default 1 hour. */
  ttlMs?: number | null;
  /** How long a client should wait between two tasks/get, in integer milliseconds. Default 1000. */
  pollIntervalMs?: number;
  /** Who owns a task; by default the validated token's issuer, client and subject. */
  principal?: (auth: AuthInfo | undefined) => string;
  /** Depth and size allowed for a tasks/update's `inputResponses`; the Server's defaults otherwise. */
  paramsLimits?: ParamsLimits;
  logger?: Logger;
  /**
   * Where the bodies of McpServer tools' tasks run: by default in the process that accepted the call,
   * lost with it. A durable runner (`BullMqTaskRunner`) queues them for any worker of the fleet, which
   * re-creates the body from what the task keeps sealed (the call and its auth). Needs a shared
   * `store` and `key`.
   */
  runner?: TaskRunner;
  /** The clock, for tests. */
  now?: () => number;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_POLL_INTERVAL_MS = 1000;

function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${what} is a positive integer number of milliseconds, not ${String(value)}`);
  }
  return value;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) of a server: give it to the Server (`tasks`
 * option), and a tools/call handler may answer `tasks.start(ctx, body)`; the server then answers
 * tasks/get, tasks/update and tasks/cancel. A task id is an unguessable bearer capability of the
 * principal that created it: anyone else gets the same -32602 as for an id that never existed.
 */
export class Tasks {
  readonly #kit: TaskKit;
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #principal: (auth: AuthInfo | undefined) => string;
  readonly #paramsLimits: ParamsLimits | undefined;
  readonly #runner: TaskRunner | undefined;
  #execute: CallExecutor | undefined;
  #announce: ((method: string, params: Record<string, unknown>) => void) | undefined;

  constructor(options: TasksOptions = {}) {
    this.#ttlMs = options.ttlMs === null ? null : positiveInteger(options.ttlMs ?? DEFAULT_TTL_MS, "ttlMs");
    this.#pollIntervalMs = positiveInteger(
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      "pollIntervalMs",
    );
    this.#principal = options.principal ?? principalOf;
    this.#paramsLimits = options.paramsLimits;
    this.#runner = options.runner;
    this.#kit = {
      store: options.store ?? new MemoryTaskStore(options.now ? { now: options.now } : {}),
      sealer: new TaskSealer(options.key, options.codec),
      logger: options.logger ?? stderrLogger,
      now: options.now ?? Date.now,
      changed: (record) => this.#announceChange(record),
    };
  }

  /**
   * Where status notifications go: the Server that is given these tasks announces them on its bus, so
   * that a `subscriptions/listen` stream on any instance hears the tasks it asked for.
   */
  announceWith(announce: (method: string, params: Record<string, unknown>) => void): void {
    this.#announce = announce;
  }

  #announceChange(record: TaskRecord): void {
    if (!this.#announce) return;
    const { resultType: _complete, ...task } = detailedTask(this.#kit, record);
    this.#announce(NotificationMethod.tasks, task);
  }

  /**
   * The ids of `taskIds` that are the caller's own tasks: what its `subscriptions/listen` stream may
   * hear of. Another principal's ids are dropped as silently as unknown ones. -32021 when the client
   * did not declare the extension.
   */
  async ownTaskIds(context: RequestContext, taskIds: readonly string[]): Promise<string[]> {
    this.requireNegotiated(context);
    const principal = this.#principal(context.auth);
    const owned: string[] = [];
    for (const taskId of new Set(taskIds)) {
      const record = await this.#kit.store.get(taskId);
      if (record?.principal === principal) owned.push(taskId);
    }
    return owned;
  }

  /** What `server/discover` advertises under `capabilities.extensions`. */
  get capability(): Record<string, Record<string, unknown>> {
    return { [TASKS_EXTENSION]: {} };
  }

  /** Whether this request's client declared the extension, so that it may be answered with a task. */
  negotiated(context: Pick<RequestContext, "clientCapabilities">): boolean {
    return context.clientCapabilities.extensions?.[TASKS_EXTENSION] !== undefined;
  }

  /** Throws -32021 naming the extension when this request's client did not declare it. */
  requireNegotiated(context: Pick<RequestContext, "clientCapabilities">): void {
    if (!this.negotiated(context))
      throw McpError.missingCapability({ extensions: { [TASKS_EXTENSION]: {} } });
  }

  /**
   * Stores a new task owned by the request's principal, starts `body` in the background and answers
   * the task's seed state, once a tasks/get would find it. -32021 when the client did not declare the
   * extension: a handler that can also answer directly checks `negotiated` first. The body runs in
   * this process, whatever the runner: only a tool call (`startCall`) can be re-created elsewhere.
   */
  async start(context: RequestContext, body: TaskBody): Promise<CreateTaskResult> {
    const record = await this.#create(context, undefined);
    this.#runHere(record, body, context);
    return createTaskResult(record);
  }

  /**
   * What McpServer gives its tools' tasks: a task whose body is the tools/call `params`, kept sealed on
   * the task, so that with a `runner` any worker that has the same tools runs it (and runs it again
   * when its worker died). Without a runner it runs here, as `start`'s body does.
   */
  async startCall(context: RequestContext, params: CallToolParams): Promise<CreateTaskResult> {
    const execute = this.#execute;
    if (!execute) throw new Error("startCall needs the tools to run: give these Tasks to an McpServer");
    const call = taskCallOf(params, context);
    const record = await this.#create(context, call);
    if (!this.#runner) {
      this.#runHere(record, (task) => execute(params, task), context);
      return createTaskResult(record);
    }
    try {
      await this.#runner.enqueue(record.taskId);
    } catch (error) {
      this.#kit.logger.error(describeError(error), "a task could not be queued; it was failed");
      const unqueued = McpError.internal().toJSON();
      await mutateTask(this.#kit, record.taskId, (stored) => ({
        ...without(stored, "call"),
        status: "failed",
        outcome: this.#kit.sealer.seal(record.taskId, unqueued),
      })).catch(() => undefined);
      throw unavailable("queue the task");
    }
    return createTaskResult(record);
  }

  /**
   * How this instance runs a tool call's task: McpServer sets it to its tool registry, so that the
   * tools are found by name on whichever instance or worker runs the task.
   */
  executeCallsWith(execute: CallExecutor): void {
    this.#execute = execute;
  }

  /**
   * Runs a task that `startCall` queued, as a runner's worker does: re-creates its body from the
   * sealed call, resumes it where an earlier run left it (its answers and last round are on the task)
   * and records its outcome. Does nothing for a task that ended, is unknown, or expired. Rejects,
   * recording nothing, when the store failed meanwhile: the runner then runs it again.
   */
  async run(taskId: string): Promise<void> {
    const execute = this.#execute;
    if (!execute) throw new Error("Tasks.run needs the tools to run: give these Tasks to an McpServer");
    const record = await this.#kit.store.get(taskId);
    if (!record?.call || isTerminalTaskStatus(record.status)) return;
    const call = this.#kit.sealer.open(taskId, record.call) as TaskCall;
    const base = {
      requestId: call.requestId,
      meta: call.meta,
      auth: call.auth,
      transport: { kind: call.transport },
    };
    const contextWith = (signal: AbortSignal, status: (message: string) => Promise<void>) =>
      taskContext(base, signal, status);
    await runTask(this.#kit, taskId, (task) => execute(call.params, task), contextWith, record);
  }

  async #create(context: RequestContext, call: TaskCall | undefined): Promise<TaskRecord> {
    this.requireNegotiated(context);
    const now = this.#kit.now();
    // A bearer capability minted once per task: drawn on its own, never kept in memory unissued.
    const taskId = randomBytes(24).toString("base64url");
    const record: TaskRecord = {
      taskId,
      principal: this.#principal(context.auth),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      ...(call ? { call: this.#kit.sealer.seal(taskId, call) } : {}),
      revision: 0,
    };
    try {
      await this.#kit.store.create(record);
    } catch (error) {
      this.#kit.logger.error(describeError(error), "a task could not be stored; none was created");
      throw unavailable("create the task");
    }
    return record;
  }

  #runHere(record: TaskRecord, body: TaskBody, context: RequestContext): void {
    const contextWith = (signal: AbortSignal, status: (message: string) => Promise<void>) =>
      taskContext(context, signal, status);
    runTask(this.#kit, record.taskId, body, contextWith, record).catch((error: unknown) => {
      this.#kit.logger.error(
        describeError(error),
        "a task's outcome could not be stored; the task store failed",
      );
    });
  }

  /** Whether `method` is one this extension answers. */
  serves(method: string): method is ExtensionRequestMethod {
    return isExtensionRequestMethod(method) && EXTENSION_REQUESTS[method].extension === TASKS_EXTENSION;
  }

  /** Answers tasks/get, tasks/update or tasks/cancel: -32021 first when the client did not declare the extension. */
  async serve(
    method: ExtensionRequestMethod,
    params: Record<string, unknown>,
    context: RequestContext,
  ): Promise<ResultObject> {
    this.requireNegotiated(context);
    const tooLarge = checkParamsLimits(params, this.#paramsLimits);
    if (tooLarge) throw tooLarge;
    const parsed = EXTENSION_REQUESTS[method].params.safeParse(params);
    if (!parsed.success) throw McpError.invalidParams(`Invalid params: ${firstIssue(parsed.error)}`);
    const principal = this.#principal(context.auth);
    try {
      switch (method) {
        case "tasks/get":
          return await getTask(this.#kit, parsed.data as TaskIdParams, principal);
        case "tasks/update":
          return await updateTask(this.#kit, parsed.data as UpdateTaskParams, principal);
        case "tasks/cancel":
          return await cancelTask(this.#kit, parsed.data as TaskIdParams, principal);
      }
    } catch (error) {
      if (error instanceof McpError) throw error;
      this.#kit.logger.error(describeError(error), `${method} failed: the task store did not answer`);
      throw unavailable(`answer ${method}`);
    }
  }
}

/**
 * What a client gets when the task store failed: the cause is logged on the server, never sent; the
 * client is told that nothing of its request may be assumed done and when to try again.
 */
function unavailable(what: string): McpError {
  return new McpError(
    ErrorCode.InternalError,
    `The server's task store is unavailable, so it could not ${what}; nothing was changed. Retry later`,
  );
}

/** Runs a tool call as a task's body: what McpServer's tool registry does for `startCall` and `run`. */
export type CallExecutor = (params: CallToolParams, task: TaskControl) => Promise<ResultObject>;
