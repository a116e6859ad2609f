import { isInputRequiredResult } from "../protocol/input-required.js";
import type {
  InputRequest,
  InputRequiredResult,
  InputResponse,
  InputResponses,
} from "../protocol/schemas/input-required.js";
import { InputRequiredRoundsExceededError } from "./errors.js";
import { abortReason, raceAbort } from "./transport/client-transport.js";

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
  maxRounds: number;
  clock: Clock;
  /** Bounds the whole call, every round included. */
  signal?: AbortSignal;
  /** Fields of the first request, to resume a flow saved by another process. */
  seed?: RetryFields;
  /** Sends the original request plus `fields`, each time as a new JSON-RPC request. */
  send(fields: RetryFields, signal: AbortSignal | undefined): Promise<T | InputRequiredResult>;
  /** Answers one embedded request; `round` counts InputRequiredResults from 1. */
  answer(key: string, request: InputRequest, round: number, signal: AbortSignal): Promise<InputResponse>;
}

/** Runs the rounds and returns the complete result; throws past `maxRounds` retries. */
export async function runInputRequiredLoop<T>(loop: InputRequiredLoop<T>): Promise<T> {
  const { signal, clock } = loop;
  let fields: RetryFields = { ...loop.seed };
  let rounds = 0;
  let delay = INITIAL_BACKOFF_MS;
  while (true) {
    const result = await loop.send(fields, signal);
    if (!isInputRequiredResult(result)) return result as T;
    rounds += 1;
    if (rounds > loop.maxRounds) throw new InputRequiredRoundsExceededError(loop.method, loop.maxRounds);
    const requests = result.inputRequests ?? {};
    fields = {};
    if (Object.keys(requests).length > 0) {
      fields.inputResponses = await answerAll(loop, requests, rounds);
      delay = INITIAL_BACKOFF_MS;
    } else {
      // Nothing to ask the user: the server is shedding load or handing over; don't hammer it.
      await clock.sleep(delay, signal);
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
    // Echoed untouched: the client must never inspect, parse or re-encode it.
    if (result.requestState !== undefined) fields.requestState = result.requestState;
  }
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
