import { randomBytes } from "node:crypto";
import { McpError } from "../../protocol/errors.js";
import { type Logger, stderrLogger } from "../../protocol/logger.js";
import {
  EXTENSION_REQUESTS,
  type ExtensionRequestMethod,
  isExtensionRequestMethod,
} from "../../protocol/methods.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";
import {
  type CreateTaskResult,
  TASKS_EXTENSION,
  type TaskIdParams,
  type UpdateTaskParams,
} from "../../protocol/schemas/tasks.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { AuthInfo } from "../auth-info.js";
import { createRequestContext, type RequestContext } from "../context.js";
import { MemoryTaskStore } from "../fleet/memory-task-store.js";
import type { TaskRecord, TaskStore } from "../fleet/task-store.js";
import type { ResultObject } from "../middleware.js";
import { checkParamsLimits, type ParamsLimits } from "../params-limits.js";
import { principalOf } from "../principal.js";
import type { TaskKit } from "./task-kit.js";
import { cancelTask, detailedTask, getTask, updateTask } from "./task-requests.js";
import { runTask, type TaskBody } from "./task-run.js";
import { TaskSealer } from "./task-sealer.js";
import { createTaskResult } from "./task-wire.js";

export interface TasksOptions {
  /** Where tasks live; by default this process's memory. A fleet shares one store (and `key`). */
  store?: TaskStore;
  /** 32 bytes that seal what the store keeps; by default one made for this process. */
  key?: Uint8Array;
  /** How long a task is kept from its creation, in integer milliseconds; null for ever. Default 1 hour. */
  ttlMs?: number | null;
  /** How long a client should wait between two tasks/get, in integer milliseconds. Default 1000. */
  pollIntervalMs?: number;
  /** Who owns a task; by default the validated token's issuer, client and subject. */
  principal?: (auth: AuthInfo | undefined) => string;
  /** Depth and size allowed for a tasks/update's `inputResponses`; the Server's defaults otherwise. */
  paramsLimits?: ParamsLimits;
  logger?: Logger;
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
  #announce: ((method: string, params: Record<string, unknown>) => void) | undefined;

  constructor(options: TasksOptions = {}) {
    this.#ttlMs = options.ttlMs === null ? null : positiveInteger(options.ttlMs ?? DEFAULT_TTL_MS, "ttlMs");
    this.#pollIntervalMs = positiveInteger(
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      "pollIntervalMs",
    );
    this.#principal = options.principal ?? principalOf;
    this.#paramsLimits = options.paramsLimits;
    this.#kit = {
      store: options.store ?? new MemoryTaskStore(options.now ? { now: options.now } : {}),
      sealer: new TaskSealer(options.key),
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
   * extension: a handler that can also answer directly checks `negotiated` first.
   */
  async start(context: RequestContext, body: TaskBody): Promise<CreateTaskResult> {
    this.requireNegotiated(context);
    const now = this.#kit.now();
    const record: TaskRecord = {
      taskId: randomBytes(24).toString("base64url"),
      principal: this.#principal(context.auth),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      revision: 0,
    };
    await this.#kit.store.create(record);
    const contextWith = (signal: AbortSignal) =>
      createRequestContext({
        requestId: context.requestId,
        method: context.method,
        meta: context.meta,
        signal,
        auth: context.auth,
        transport: context.transport,
        sink: undefined,
      });
    void runTask(this.#kit, record.taskId, body, contextWith);
    return createTaskResult(record);
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
    switch (method) {
      case "tasks/get":
        return getTask(this.#kit, parsed.data as TaskIdParams, principal);
      case "tasks/update":
        return updateTask(this.#kit, parsed.data as UpdateTaskParams, principal);
      case "tasks/cancel":
        return cancelTask(this.#kit, parsed.data as TaskIdParams, principal);
    }
  }
}
