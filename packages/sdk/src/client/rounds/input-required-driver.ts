import { isInputRequiredResult } from "../../protocol/input-required.js";
import type {
  InputRequest,
  InputRequiredResult,
  InputResponse,
  InputResponses,
} from "../../protocol/schemas/input-required.js";
import { InputRequiredRoundsExceededError } from "../errors.js";
import { abortReason, raceAbort } from "../transport/client-transport.js";
import type { RoundDecision } from "./rounds.js";

/**
 * The client side of multi round-trip requests, in one place: send, answer every embedded request
 * concurrently, retry with the answers and the echoed requestState, until the server completes.
 */

export const DEFAULT_MAX_ROUNDS = 10;
/** A round that carries only requestState waits this long first, doubling up to MAX_BACKOFF_MS. */
export const INITIAL_BACKOFF_MS = 50;
export const MAX_BACKOFF_MS = 250;

/** Time as the loop sees it; tests pass a fake one. */
export interface Clock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};

/** The fields a retry adds to the original params. Absent fields are left out of the request entirely. */
export interface RetryFields {
  inputResponses?: InputResponses;
  requestState?: string;
}

export interface InputRequiredLoop<T> {
  /** tools/call, prompts/get or resources/read, for error messages. */
  method: string;
  /** The InputRequiredResults one run may receive; a resumed run has a budget of its own. */
  maxRounds: number;
  clock: Clock;
  /** Bounds the whole call, every round included. */
  signal?: AbortSignal;
  /** Fields of the first request, to resume a flow saved by another process. */
  seed?: RetryFields;
  /**
   * A round received by an earlier run, to resume from: it is decided and answered before anything is
   * sent, and the rounds this run receives are numbered after it.
   */
  from?: LoopRound;
  /** Sends the original request plus `fields`, each time as a new JSON-RPC request. */
  send(fields: RetryFields, signal: AbortSignal | undefined): Promise<T | InputRequiredResult>;
  /** Answers one embedded request; `round` counts InputRequiredResults from 1. */
  answer(key: string, request: InputRequest, round: number, signal: AbortSignal): Promise<InputResponse>;
  /** Decides each round before it is answered; without it, every round is answered through `answer`. */
  decide?(round: LoopRound, signal: AbortSignal): Promise<RoundDecision> | RoundDecision;
}

/** One InputRequiredResult and its number in the call. */
export interface LoopRound {
  round: number;
  result: InputRequiredResult;
}

export type LoopOutcome<T> = { kind: "complete"; result: T } | ({ kind: "stopped" } & LoopRound);

const ANSWER: RoundDecision = { kind: "answer" };

/** Runs the rounds and returns the complete result; throws past `maxRounds` retries. */
export async function runInputRequiredLoop<T>(loop: InputRequiredLoop<T>): Promise<T> {
  const outcome = await driveRounds(loop);
  // Only `decide` stops; a loop without it runs to the end.
  if (outcome.kind === "stopped") throw new Error(`${loop.method} stopped at round ${outcome.round}`);
  return outcome.result;
}

/**
 * Runs the rounds until the result is complete or `decide` stops at a round; throws past `maxRounds`
 * InputRequiredResults received by this run.
 */
export async function driveRounds<T>(loop: InputRequiredLoop<T>): Promise<LoopOutcome<T>> {
  const { signal, clock } = loop;
  let fields: RetryFields = { ...loop.seed };
  const base = loop.from?.round ?? 0;
  let received = 0;
  let delay = INITIAL_BACKOFF_MS;
  let current = loop.from;
  while (true) {
    if (current === undefined) {
      const result = await loop.send(fields, signal);
      if (!isInputRequiredResult(result)) return { kind: "complete", result: result as T };
      received += 1;
      if (received > loop.maxRounds) throw new InputRequiredRoundsExceededError(loop.method, loop.maxRounds);
      current = { round: base + received, result };
    }
    const { round, result } = current;
    current = undefined;
    const decision = loop.decide ? await decideRound(loop, { round, result }) : ANSWER;
    if (decision.kind === "stop") return { kind: "stopped", round, result };
    const requests = result.inputRequests ?? {};
    fields = {};
    if (Object.keys(requests).length > 0) {
      fields.inputResponses = decision.inputResponses ?? (await answerAll(loop, requests, round));
      delay = INITIAL_BACKOFF_MS;
    } else {
      // Nothing to ask the user: the server is shedding load or handing over; don't hammer it.
      await clock.sleep(delay, signal);
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
      if (decision.inputResponses !== undefined) fields.inputResponses = decision.inputResponses;
    }
    // Echoed untouched: the client must never inspect, parse or re-encode it.
    if (result.requestState !== undefined) fields.requestState = result.requestState;
  }
}

/** The hook's decision for one round; abandoning the call abandons the wait for it. */
async function decideRound<T>(loop: InputRequiredLoop<T>, round: LoopRound): Promise<RoundDecision> {
  const decide = loop.decide as NonNullable<InputRequiredLoop<T>["decide"]>;
  const outer = loop.signal;
  const signal = outer ?? new AbortController().signal;
  const decision = await raceAbort(
    Promise.resolve().then(() => decide(round, signal)),
    outer,
  );
  if (decision?.kind !== "answer" && decision?.kind !== "stop") {
    throw new TypeError(
      `onRound returned ${JSON.stringify(decision)} for round ${round.round} of ${loop.method}; return { kind: "answer" }, { kind: "answer", inputResponses } or { kind: "stop" }`,
    );
  }
  return decision;
}

/**
 * Every request of a round runs at once (a form and a sampling call may depend on each other's UI);
 * the first failure aborts the others and fails the call, since there is no wire form for a partial answer.
 */
async function answerAll<T>(
  loop: InputRequiredLoop<T>,
  requests: Record<string, InputRequest>,
  round: number,
): Promise<InputResponses> {
  const controller = new AbortController();
  const outer = loop.signal;
  const abort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", abort, { once: true });
  try {
    const entries = Object.entries(requests).map(async ([key, request]) => {
      try {
        return [key, await loop.answer(key, request, round, controller.signal)] as const;
      } catch (error) {
        controller.abort(error);
        throw error;
      }
    });
    const answers = await raceAbort(Promise.all(entries), outer);
    return Object.fromEntries(answers);
  } finally {
    outer?.removeEventListener("abort", abort);
  }
}
