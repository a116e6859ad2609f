import type { CarrierMethod } from "../../protocol/carriers.js";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { InputRequest } from "../../protocol/schemas/input-required.js";
import { callbackName } from "../errors.js";
import type { InputRequiredLoop, RetryFields } from "./input-required-driver.js";

/** Who answered one input request of a round. */
export type AnsweredBy =
  | "onElicit"
  | "onSample"
  | "onListRoots"
  /** The onRound hook of runRounds, with inputResponses of its own. */
  | "onRound"
  /** Nobody: the call failed, or was stopped, before an answer was sent. */
  | "unanswered";

/** One input request of a round: its key, what it asked for, and who answered. */
export interface TracedRequest {
  readonly key: string;
  readonly method: InputRequest["method"];
  readonly answeredBy: AnsweredBy;
}

/**
 * One request of a tools/call, prompts/get or resources/read and what came of it: an audit record a
 * host can show or keep. It holds no answer, no question text and no requestState, which may quote
 * the user; only their keys, kinds and who answered.
 */
export interface RoundTrace {
  /** 1 for the first request of the call; round N's input requests are answered by request N + 1. */
  readonly round: number;
  readonly method: CarrierMethod;
  /** The tool or prompt name, or the resource URI. */
  readonly target: string;
  /** How the server answered: "input_required" (the round asked), "complete", or "failed" (an error). */
  readonly outcome: "input_required" | "complete" | "failed";
  /** The input requests of an input_required answer, in the server's order. */
  readonly requests: readonly TracedRequest[];
  /** Whether the answer carried a requestState to echo (never the state itself). */
  readonly requestState: boolean;
  /** Milliseconds from sending the request to its answer. */
  readonly serverMs: number;
  /** Milliseconds the answers took (the user's time included), or the wait of a state-only round. */
  readonly answerMs: number;
}

export type RoundTraceHandler = (trace: RoundTrace) => void;

interface OpenRound {
  round: number;
  serverMs: number;
  requests: Map<string, { method: InputRequest["method"]; answeredBy: AnsweredBy }>;
  requestState: boolean;
  answering: number;
}

/**
 * Wraps a round loop to report each request as it ends: a round that asked is reported when its
 * answers go out (or the call fails), so that its record says who answered and how long it took.
 */
export class RoundTracer {
  readonly #method: CarrierMethod;
  readonly #target: string;
  readonly #report: RoundTraceHandler;
  readonly #now: () => number;
  #open: OpenRound | undefined;
  #sent = 0;

  constructor(
    method: CarrierMethod,
    target: string,
    report: RoundTraceHandler,
    now = () => performance.now(),
  ) {
    this.#method = method;
    this.#target = target;
    this.#report = report;
    this.#now = now;
  }

  wrap<T>(loop: InputRequiredLoop<T>): InputRequiredLoop<T> {
    this.#sent = loop.from?.round ?? 0;
    if (loop.from) this.#opened(loop.from.round, 0, loop.from.result);
    return {
      ...loop,
      send: async (fields, signal) => {
        this.#close(fields);
        const round = ++this.#sent;
        const started = this.#now();
        let result: Awaited<ReturnType<typeof loop.send>>;
        try {
          result = await loop.send(fields, signal);
        } catch (error) {
          this.#emit(round, "failed", this.#now() - started, new Map(), false, 0);
          throw error;
        }
        const serverMs = this.#now() - started;
        if (isInputRequiredResult(result)) this.#opened(round, serverMs, result);
        else this.#emit(round, "complete", serverMs, new Map(), false, 0);
        return result;
      },
      answer: async (key, request, round, signal) => {
        const response = await loop.answer(key, request, round, signal);
        const traced = this.#open?.requests.get(key);
        if (traced) traced.answeredBy = callbackName(request.method) as AnsweredBy;
        return response;
      },
    };
  }

  /** The call ended (failed, or stopped by onRound) with a round still open: it is reported as it stands. */
  end(): void {
    this.#close({});
  }

  #opened(
    round: number,
    serverMs: number,
    result: { inputRequests?: Record<string, InputRequest>; requestState?: string },
  ) {
    const requests = new Map(
      Object.entries(result.inputRequests ?? {}).map(([key, request]) => [
        key,
        { method: request.method, answeredBy: "unanswered" as AnsweredBy },
      ]),
    );
    this.#open = {
      round,
      serverMs,
      requests,
      requestState: result.requestState !== undefined,
      answering: this.#now(),
    };
  }

  #close(fields: RetryFields): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    for (const [key, traced] of open.requests) {
      if (traced.answeredBy === "unanswered" && fields.inputResponses?.[key] !== undefined)
        traced.answeredBy = "onRound";
    }
    this.#emit(
      open.round,
      "input_required",
      open.serverMs,
      open.requests,
      open.requestState,
      this.#now() - open.answering,
    );
  }

  #emit(
    round: number,
    outcome: RoundTrace["outcome"],
    serverMs: number,
    requests: OpenRound["requests"],
    requestState: boolean,
    answerMs: number,
  ): void {
    this.#report({
      round,
      method: this.#method,
      target: this.#target,
      outcome,
      requests: [...requests].map(([key, { method, answeredBy }]) => ({ key, method, answeredBy })),
      requestState,
      serverMs,
      answerMs,
    });
  }
}
