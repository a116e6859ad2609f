import type { InputResponses } from "../protocol/schemas/input-required.js";
import type { ProgressParams } from "../protocol/schemas/notifications.js";
import type { GetTaskResult } from "../protocol/schemas/tasks.js";
import type { CacheMode } from "./cache/result-cache.js";
import type { PageWalk } from "./pagination.js";
import type { RoundTraceHandler } from "./rounds/round-trace.js";
import type { RoundHook } from "./rounds/rounds.js";
import type { TaskHandle } from "./tasks/task-handle.js";

/** Options every client request takes. */
export interface CallOptions {
  /** Abandons the call; for the automatic loop, every round of it. */
  signal?: AbortSignal;
  /** Wall-clock bound of the whole call, rounds and waits included; overrides the client's timeoutMs. */
  timeoutMs?: number;
  /** How long each request of the call waits for its answer; overrides the client's requestTimeoutMs. */
  requestTimeoutMs?: number;
  /** Asks the server for progress (a progressToken is added) and receives it. */
  onProgress?: (progress: ProgressParams) => void;
  /** Extra `_meta` keys for this request, such as traceparent; the protocol's own keys win. */
  meta?: Record<string, unknown>;
  /**
   * How a cacheable request (the lists, resources/read) uses the client's cache, when it has one:
   * "default" reuses a fresh result and keeps the new one, "reload" goes to the server and keeps
   * what it answers, "no-store" goes to the server and keeps nothing. `client.manualRounds` calls, which
   * hand every answer to the caller, always go to the server and keep nothing.
   */
  cache?: CacheMode;
}

/** How a call follows a task (the tasks extension): followTask's options, and callTool's. */
export interface TaskFollowOptions extends CallOptions {
  /**
   * Hears the task as each tasks/get describes it (status, statusMessage), to show it as it goes. A
   * promise it returns holds following until it settles (while the person decides something, say); a
   * rejection ends the call with that error; anything else it returns is ignored.
   */
  onTaskStatus?: (task: GetTaskResult) => unknown;
  /**
   * What an abort of the call's `signal` (or its timeoutMs) does to the task: "cancel" (the default)
   * sends tasks/cancel, "keep" leaves it running on the server, to follow again with its handle.
   */
  taskOnAbort?: "cancel" | "keep";
}

/** Options of callTool/getPrompt/readResource, which run the input_required rounds. */
export interface CarrierCallOptions extends TaskFollowOptions {
  /**
   * Hears the handle of the task a server answered with, before it is followed: keep it to follow the
   * task again after this call ends (taskOnAbort "keep"), from this client or another one.
   */
  onTask?: (task: TaskHandle) => void;
  /** Answers for the first request: resume a flow whose previous round was saved elsewhere. */
  inputResponses?: InputResponses;
  /** The saved requestState of that round, exactly as received. */
  requestState?: string;
  /**
   * Hears each request of the call once it has ended: what the server asked, which callback answered
   * each key, how long the server and the answers took. For showing or auditing the rounds.
   */
  onRoundTrace?: RoundTraceHandler;
}

/** Options of runRounds: those of callTool, and the hook that sees each round. */
export interface RoundsOptions extends CarrierCallOptions {
  /**
   * Sees every InputRequiredResult, in order, and decides: answer it (through the callbacks, or with
   * its own inputResponses) or stop, ending the call with a `stopped` outcome to resume later. Without
   * it the callbacks answer every round, as in callTool.
   */
  onRound?: RoundHook;
}

/** The options of a list request: a call's, and which page to read or whether to read them all. */
export interface ListOptions extends CallOptions, PageWalk {
  /** The page to read (with `all: true`, the first one): a nextCursor of an earlier page. */
  cursor?: string;
}
