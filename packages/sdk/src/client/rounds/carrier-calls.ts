import { type CarrierMethod, carrierTarget } from "../../protocol/carriers.js";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import { methodFacts } from "../../protocol/methods.js";
import type { Implementation } from "../../protocol/schemas/common.js";
import {
  type InputRequiredResult,
  InputRequiredResultSchema,
} from "../../protocol/schemas/input-required.js";
import { CreateTaskResultSchema } from "../../protocol/schemas/tasks.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { CarrierCallOptions, RoundsOptions, TaskFollowOptions } from "../call-options.js";
import type { CallPeer } from "../call-peer.js";
import { answerInputRequest, type CapabilityChoices, type InputCallbacks } from "../callbacks.js";
import type { RoundFields } from "../era/era.js";
import { InputRequiredNotAllowedError, ProtocolViolationError } from "../errors.js";
import type { OutputSchemaRegistry } from "../output-schemas.js";
import { readCarrierResult } from "../results.js";
import { followTaskId, isCreateTaskResult, type TaskToFollow } from "../tasks/follow-task.js";
import { sendCancellingLateTask } from "../tasks/late-task.js";
import { type TaskHandle, taskHandle } from "../tasks/task-handle.js";
import { markRound } from "../telemetry/round-marks.js";
import {
  type Clock,
  driveRounds,
  type InputRequiredLoop,
  type LoopRound,
  type RetryFields,
  runInputRequiredLoop,
} from "./input-required-driver.js";
import type { SendOnce } from "./manual-loop.js";
import { RoundTracer } from "./round-trace.js";
import type { CarrierCall, CarrierResults, RoundsOutcome, SavedRound } from "./rounds.js";

/** What the carrier calls need besides what every call does. */
export interface CarrierCallsPeer extends CallPeer {
  /** Throws for a tool the client dropped, or round fields the era has no use for. */
  refuse(method: CarrierMethod, params: Record<string, unknown>, fields: RoundFields): void;
  readonly outputSchemas: OutputSchemaRegistry | undefined;
  readonly callbacks: InputCallbacks;
  readonly choices: CapabilityChoices;
  serverInfo(): Implementation | undefined;
  readonly maxRounds: number;
  readonly clock: Clock;
  /** The client declares the tasks extension: a tools/call may be answered with a task. */
  tasksDeclared(): boolean;
}

/** What startTool got: the tool's result, or the task the server runs it as, not followed. */
export type ToolStart = { kind: "complete"; result: CallToolResult } | { kind: "task"; task: TaskHandle };

/**
 * tools/call, prompts/get and resources/read, whose server may answer input_required: run with the
 * callbacks answering every round, with a hook deciding each one, or one request at a time.
 */
export class CarrierCalls {
  readonly #peer: CarrierCallsPeer;

  constructor(peer: CarrierCallsPeer) {
    this.#peer = peer;
  }

  /** Every round, answered by the callbacks, until the result is complete. */
  async call(
    method: CarrierMethod,
    params: Record<string, unknown>,
    options: CarrierCallOptions,
    /** "take": a task the server answers with ends the call, its CreateTaskResult returned unfollowed. */
    tasks: "follow" | "take" = "follow",
  ): Promise<unknown> {
    const peer = this.#peer;
    const signal = peer.callSignal(options);
    await peer.ready(signal);
    peer.refuse(method, params, options);
    // Without a cache nothing is awaited here, so an abort right after the call finds the request sent.
    const fresh =
      peer.cache.enabled && !retrying(options) ? await peer.cache.read(method, params, options) : undefined;
    if (fresh !== undefined) return fresh;
    return this.#traced(method, params, options, (trace) =>
      runInputRequiredLoop(trace(this.#loop(method, params, options, signal, 1, tasks))),
    );
  }

  /** A tools/call whose task, if the server answers with one, is handed back instead of followed. */
  async startTool(params: Record<string, unknown>, options: CarrierCallOptions): Promise<ToolStart> {
    const result = (await this.call("tools/call", params, options, "take")) as Record<string, unknown>;
    if (!isCreateTaskResult(result)) return { kind: "complete", result: result as CallToolResult };
    return { kind: "task", task: this.#handle(String(params.name), result) };
  }

  /** Follows a task kept from an earlier call to its end, as callTool follows one; see Client.followTask. */
  async followTask(handle: TaskHandle, options: TaskFollowOptions): Promise<CallToolResult> {
    if (typeof handle?.taskId !== "string" || handle.taskId === "" || typeof handle.name !== "string") {
      throw new TypeError(
        "followTask needs the TaskHandle a call gave (onTask or startTool), with its taskId and the tool's name",
      );
    }
    const peer = this.#peer;
    const signal = peer.callSignal(options);
    await peer.ready(signal);
    const raw = await this.#followTask("tools/call", handle.name, handle, options, signal);
    return this.#result("tools/call", { name: handle.name }, raw) as CallToolResult;
  }

  #handle(name: string, created: Record<string, unknown>): TaskHandle {
    const parsed = CreateTaskResultSchema.safeParse(created);
    if (!parsed.success)
      throw new ProtocolViolationError("tools/call", `${firstIssue(parsed.error)} (for tools/call)`);
    return taskHandle(name, parsed.data);
  }

  /** The rounds with `onRound` deciding each one; see Client.runRounds. */
  async runRounds<M extends CarrierMethod>(
    start: CarrierCall<M> | SavedRound<M>,
    options: RoundsOptions,
  ): Promise<RoundsOutcome<M>> {
    const peer = this.#peer;
    const { method } = start;
    const from = "result" in start ? resumePoint(start, options) : undefined;
    const { onRound } = options;
    const params: Record<string, unknown> = { ...start.params };
    const signal = peer.callSignal(options);
    await peer.ready(signal);
    peer.refuse(method, params, from === undefined ? {} : { requestState: "saved" });
    const outcome = await this.#traced(method, params, options, (trace) =>
      driveRounds(
        trace({
          ...this.#loop(method, params, options, signal, (from?.round ?? 0) + 1),
          from,
          decide:
            onRound &&
            (({ round, result }, roundSignal) =>
              onRound({
                method,
                params: start.params,
                round,
                result,
                target: carrierTarget(method, params) ?? "",
                server: peer.serverInfo(),
                signal: roundSignal,
              })),
        }),
      ),
    );
    if (outcome.kind === "complete") return { kind: "complete", result: outcome.result as CarrierResults[M] };
    const { round, result } = outcome;
    return { kind: "stopped", saved: { method, params: start.params, round, result } };
  }

  /** One request, its InputRequiredResult handed back to the caller: `client.manualRounds`. */
  readonly sendOnce: SendOnce = async (method, params, options) => {
    const peer = this.#peer;
    const signal = peer.callSignal(options);
    await peer.ready(signal);
    peer.refuse(method, params, options);
    const raw = await peer.send(method, { ...params, ...retryFieldsOf(options) }, { ...options, signal });
    const result = this.#result(method, params, raw);
    if (isInputRequiredResult(result) && !options.allowInputRequired)
      throw new InputRequiredNotAllowedError(method);
    return result as Record<string, unknown> | InputRequiredResult;
  };

  /** Runs the rounds with the call's onRoundTrace, if any, hearing each request as it ends. */
  async #traced<R>(
    method: CarrierMethod,
    params: Record<string, unknown>,
    options: CarrierCallOptions,
    run: (trace: <T>(loop: InputRequiredLoop<T>) => InputRequiredLoop<T>) => Promise<R>,
  ): Promise<R> {
    const { onRoundTrace } = options;
    if (!onRoundTrace) return run((loop) => loop);
    const tracer = new RoundTracer(method, carrierTarget(method, params) ?? "", onRoundTrace);
    try {
      return await run((loop) => tracer.wrap(loop));
    } finally {
      tracer.end();
    }
  }

  /** The rounds of one carrier request, bounded by the call's `signal`. */
  #loop(
    method: CarrierMethod,
    params: Record<string, unknown>,
    options: CarrierCallOptions,
    signal: AbortSignal | undefined,
    firstRequest = 1,
    tasks: "follow" | "take" = "follow",
  ): InputRequiredLoop<unknown> {
    const peer = this.#peer;
    const target = carrierTarget(method, params) ?? "";
    // A call resumed from a bare requestState does not say which round it was: its numbers are unknown.
    let request = options.requestState === undefined ? firstRequest - 1 : Number.NaN;
    return {
      method,
      maxRounds: peer.maxRounds,
      clock: peer.clock,
      signal,
      seed: retryFieldsOf(options),
      send: async (fields, legSignal) => {
        const wire = { ...params, ...fields };
        request += 1;
        if (Number.isFinite(request)) markRound(wire, request);
        const sent = await this.#send(method, wire, options, legSignal);
        if (isCreateTaskResult(sent) && tasks === "take") return sent;
        const raw = isCreateTaskResult(sent)
          ? await this.#followTask(
              method,
              target,
              await this.#announced(target, sent, options),
              options,
              legSignal,
            )
          : sent;
        const result = this.#result(method, params, raw);
        if (!retrying(fields) && !isInputRequiredResult(result)) {
          await peer.cache.keep(method, params, options, result as Record<string, unknown>);
        }
        return result;
      },
      answer: (key, request, round, answerSignal) =>
        answerInputRequest(request, peer.callbacks, peer.choices, {
          key,
          round,
          method,
          target,
          server: peer.serverInfo(),
          signal: answerSignal,
        }),
    };
  }

  /**
   * One request of the rounds. A tools/call that may be answered with a task, under a signal whose abort
   * cancels tasks, is sent so that a task answered after the abort is still cancelled.
   */
  #send(
    method: CarrierMethod,
    wire: Record<string, unknown>,
    options: CarrierCallOptions,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const peer = this.#peer;
    if (method !== "tools/call" || options.taskOnAbort === "keep" || !peer.tasksDeclared())
      return peer.send(method, wire, { ...options, signal });
    return sendCancellingLateTask(
      (requestSignal) => peer.send(method, wire, { ...options, signal: requestSignal }),
      signal,
      (taskId) => this.#cancelTask(taskId, options),
    );
  }

  #cancelTask(taskId: string, options: CarrierCallOptions): Promise<Record<string, unknown>> {
    return this.#peer.send("tasks/cancel", { taskId }, { meta: options.meta });
  }

  /**
   * The task's handle, told to the caller's onTask before the task is followed. A throwing onTask ends
   * the call, so nobody follows the task: it is cancelled first, unless the caller keeps its tasks.
   */
  async #announced(
    target: string,
    created: Record<string, unknown>,
    options: CarrierCallOptions,
  ): Promise<TaskToFollow> {
    const handle = this.#handle(target, created);
    try {
      options.onTask?.(handle);
    } catch (error) {
      if (options.taskOnAbort !== "keep") {
        // Best effort: the caller's own error is the one to report.
        await this.#cancelTask(handle.taskId, options).catch(() => undefined);
      }
      throw error;
    }
    return handle;
  }

  /** A task the server answered with, followed to its end through the tasks methods and the callbacks. */
  #followTask(
    method: CarrierMethod,
    target: string,
    task: TaskToFollow,
    options: TaskFollowOptions,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const peer = this.#peer;
    return followTaskId(task, {
      method,
      signal,
      onStatus: options.onTaskStatus,
      cancelOnAbort: options.taskOnAbort !== "keep",
      send: (taskMethod, params, taskSignal) =>
        peer.send(taskMethod, params, { ...options, signal: taskSignal }),
      answer: (key, request, round, answerSignal) =>
        answerInputRequest(request, peer.callbacks, peer.choices, {
          key,
          round,
          method,
          target,
          server: peer.serverInfo(),
          // A call without a bound answers without one too.
          signal: answerSignal ?? new AbortController().signal,
        }),
    });
  }

  /** What a carrier request answered, read for its era; a complete tool result checked against its outputSchema. */
  #result(method: CarrierMethod, params: Record<string, unknown>, raw: Record<string, unknown>): unknown {
    const result = readCarrierResult(method, this.#peer.eraResult(method, raw), methodFacts(method).result);
    if (method === "tools/call" && !isInputRequiredResult(result)) {
      this.#peer.outputSchemas?.check(String(params.name), result as CallToolResult);
    }
    return result;
  }
}

function retryFieldsOf(options: { inputResponses?: RetryFields["inputResponses"]; requestState?: string }) {
  const fields: RetryFields = {};
  if (options.inputResponses !== undefined) fields.inputResponses = options.inputResponses;
  if (options.requestState !== undefined) fields.requestState = options.requestState;
  return fields;
}

/** A request that answers a round: its result depends on answers no cache key holds. */
function retrying(fields: { inputResponses?: unknown; requestState?: unknown }): boolean {
  return fields.inputResponses !== undefined || fields.requestState !== undefined;
}

/** Where a saved round resumes; its answers and requestState are decided there, so none may come with it. */
function resumePoint(saved: SavedRound, options: CarrierCallOptions): LoopRound {
  if (options.inputResponses !== undefined || options.requestState !== undefined) {
    throw new TypeError(
      "runRounds was given a saved round and inputResponses or requestState: the saved round's answers and requestState are decided when it resumes; pass a CarrierCall to send answers of your own",
    );
  }
  if (!Number.isInteger(saved.round) || saved.round < 1) {
    throw new RangeError(`a saved round's number is a whole number from 1, not ${String(saved.round)}`);
  }
  const parsed = InputRequiredResultSchema.safeParse(saved.result);
  if (!parsed.success) {
    throw new TypeError(
      `the saved round's result is not an InputRequiredResult: ${firstIssue(parsed.error)}`,
    );
  }
  return { round: saved.round, result: saved.result };
}
