import { setTimeout as sleep } from "node:timers/promises";
import type { CarrierMethod } from "@roundtrip/sdk";
import {
  type Client,
  DEFAULT_MAX_ROUNDS,
  INITIAL_BACKOFF_MS,
  type InputRequiredResult,
  type InputResponses,
  isInputRequiredResult,
  MAX_BACKOFF_MS,
} from "@roundtrip/sdk";
import { CliError, ExitCode } from "../exit-codes.js";
import { PendingStore } from "../pending-store.js";
import { type AnswerPolicy, answerRound } from "./round-answers.js";
import { type WaitingQuestion, waitingQuestions } from "./waiting-questions.js";

export interface FlowRequest {
  method: CarrierMethod;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  arguments?: Record<string, unknown>;
}

export interface RetryFields {
  inputResponses?: InputResponses;
  requestState?: string;
}

export type FlowOutcome =
  | { kind: "complete"; result: Record<string, unknown> }
  | { kind: "detached"; id: string; waiting: string[]; questions: WaitingQuestion[] };

export interface FlowOptions {
  server: string;
  pending: PendingStore;
  /** Set when finishing a saved flow: a further detach keeps its id, completion deletes it. */
  pendingId?: string;
  /** The first request's retry fields, when resuming. */
  seed?: RetryFields;
  maxRounds?: number;
}

function send(
  client: Client,
  request: FlowRequest,
  fields: RetryFields,
): Promise<Record<string, unknown> | InputRequiredResult> {
  const options = { allowInputRequired: true as const, ...fields };
  switch (request.method) {
    case "tools/call":
      return client.session.callTool(request.target, request.arguments, options);
    case "prompts/get":
      return client.session.getPrompt(
        request.target,
        request.arguments as Record<string, string> | undefined,
        options,
      );
    case "resources/read":
      return client.session.readResource(request.target, options);
  }
}

/**
 * The rounds of one call, driven here rather than by the SDK's automatic loop because a round may end
 * the process: with --detach, a round that needs a person is saved (server, call, requestState and the
 * questions) and finished later by `roundtrip resume`. requestState is only ever copied, never read.
 */
export async function driveFlow(
  client: Client,
  request: FlowRequest,
  policy: AnswerPolicy,
  options: FlowOptions,
): Promise<FlowOutcome> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  let fields: RetryFields = { ...options.seed };
  let rounds = 0;
  let delay = INITIAL_BACKOFF_MS;
  while (true) {
    const result = await send(client, request, fields);
    if (!isInputRequiredResult(result)) {
      if (options.pendingId) await options.pending.delete(options.pendingId);
      return { kind: "complete", result };
    }
    rounds += 1;
    if (rounds > maxRounds) {
      throw new CliError(
        ExitCode.failure,
        `the server kept asking for input for more than ${maxRounds} rounds of ${request.method} ${request.target}; it may be stuck, try the call again later`,
      );
    }
    const requests = result.inputRequests ?? {};
    if (Object.keys(requests).length === 0) {
      // A round with only requestState: the server is waiting on something or shedding load.
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
      fields = result.requestState === undefined ? {} : { requestState: result.requestState };
      continue;
    }
    delay = INITIAL_BACKOFF_MS;
    const outcome = await answerRound(requests, policy);
    if (outcome.kind === "detach") {
      const id = options.pendingId ?? PendingStore.newId();
      await options.pending.save({
        id,
        createdAt: new Date().toISOString(),
        server: options.server,
        method: request.method,
        target: request.target,
        ...(request.arguments ? { arguments: request.arguments } : {}),
        ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
        inputRequests: requests,
        waiting: outcome.waiting,
        serverInfo: policy.asker.info,
      });
      return {
        kind: "detached",
        id,
        waiting: outcome.waiting,
        questions: waitingQuestions(requests, outcome.waiting),
      };
    }
    fields = { inputResponses: outcome.responses };
    if (result.requestState !== undefined) fields.requestState = result.requestState;
  }
}
