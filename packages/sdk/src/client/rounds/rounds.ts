import type { CarrierMethod } from "../../protocol/carriers.js";
import type { Implementation } from "../../protocol/schemas/common.js";
import type { InputRequiredResult, InputResponses } from "../../protocol/schemas/input-required.js";
import type { GetPromptResult } from "../../protocol/schemas/prompts.js";
import type { ReadResourceResult } from "../../protocol/schemas/resources.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";

type Awaitable<T> = T | Promise<T>;

/**
 * The rounds of one call, driven by `client.runRounds` with an `onRound` hook: the hook sees every
 * InputRequiredResult and answers it or stops the call there, to go on later, in another process if
 * need be, from the round it stopped at.
 */

/** What each carrier request names, without `_meta` and the retry fields the rounds add. */
export interface CarrierParams {
  "tools/call": { readonly name: string; readonly arguments?: Record<string, unknown> };
  "prompts/get": { readonly name: string; readonly arguments?: Record<string, string> };
  "resources/read": { readonly uri: string };
}

/** The complete result of each carrier request. */
export interface CarrierResults {
  "tools/call": CallToolResult;
  "prompts/get": GetPromptResult;
  "resources/read": ReadResourceResult;
}

/** A tools/call, prompts/get or resources/read request, as `client.runRounds` sends it. */
export interface CarrierCall<M extends CarrierMethod = CarrierMethod> {
  readonly method: M;
  readonly params: CarrierParams[M];
}

/**
 * A round a call stopped at, as plain JSON data: keep it (it holds the requestState, which is opaque
 * and never to be shown) and pass it to `client.runRounds` to answer that round and go on.
 */
export interface SavedRound<M extends CarrierMethod = CarrierMethod> extends CarrierCall<M> {
  /** Which InputRequiredResult of the call this is: 1 for the first. */
  readonly round: number;
  /** What the server answered: the inputRequests to answer and the requestState to echo. */
  readonly result: InputRequiredResult;
}

/** One InputRequiredResult, as the onRound hook sees it. */
export interface InputRequiredRound<M extends CarrierMethod = CarrierMethod> extends SavedRound<M> {
  /** The tool or prompt name, or the resource URI, of the call. */
  readonly target: string;
  /** Who is asking (from server/discover): show it to the user, as the protocol requires. */
  readonly server: Implementation | undefined;
  /** Aborted when the call is abandoned. */
  readonly signal: AbortSignal;
}

/** What the onRound hook decides for its round. */
export type RoundDecision =
  /**
   * Answer the round and retry: with these inputResponses, or without them through the registered
   * callbacks (onElicit, onSample, onListRoots), as the rounds go without a hook. A round that has no
   * inputRequests waits out the backoff first and has nothing for the callbacks to answer.
   */
  | { readonly kind: "answer"; readonly inputResponses?: InputResponses }
  /** Send nothing more: the call ends with a `stopped` outcome that holds this round. */
  | { readonly kind: "stop" };

/** Called for every InputRequiredResult of a call, in order, before the round is answered. */
export type RoundHook = (round: InputRequiredRound) => Awaitable<RoundDecision>;

/** How `client.runRounds` ended: with the complete result, or at the round the hook stopped at. */
export type RoundsOutcome<M extends CarrierMethod = CarrierMethod> =
  | { readonly kind: "complete"; readonly result: CarrierResults[M] }
  | { readonly kind: "stopped"; readonly saved: SavedRound<M> };
