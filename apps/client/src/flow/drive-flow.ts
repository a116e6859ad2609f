import {
  type CarrierCall,
  type CarrierMethod,
  type Client,
  InputRequiredRoundsExceededError,
  type RoundHook,
  type RoundsOutcome,
  type SavedRound,
} from "@roundtrip/sdk";
import { CliError, ExitCode } from "../exit-codes.js";
import { declinedKeys } from "../flow-declines.js";
import { type PendingFlow, PendingStore } from "../pending-store.js";
import { type AnswerPolicy, answerRound } from "./round-answers.js";
import { SessionAnswers } from "./session-answers.js";
import { type WaitingQuestion, waitingQuestions } from "./waiting-questions.js";

export interface FlowRequest {
  method: CarrierMethod;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  arguments?: Record<string, unknown>;
}

export type FlowOutcome =
  /** declined: the keys whose question was declined or cancelled on the way. */
  | { kind: "complete"; result: Record<string, unknown>; declined: string[] }
  | { kind: "detached"; id: string; waiting: string[]; questions: WaitingQuestion[] };

export interface FlowOptions {
  server: string;
  pending: PendingStore;
  /**
   * A flow saved by --detach, to finish: its saved round is answered first, a further detach keeps its
   * id (and the saved record, when that same round detaches again), completion deletes it.
   */
  resume?: PendingFlow;
}

/**
 * The pending file keeps no round number: a resumed flow numbers its saved round 1. The SDK bounds
 * each run's rounds on its own, so a resumed run may go as many rounds as a fresh one, as it always has.
 */
const SAVED_ROUND = 1;

function carrierCall(request: FlowRequest): CarrierCall {
  if (request.method === "resources/read") return { method: request.method, params: { uri: request.target } };
  const params = { name: request.target, ...(request.arguments ? { arguments: request.arguments } : {}) };
  return { method: request.method, params };
}

function savedRound(flow: PendingFlow, request: FlowRequest): SavedRound {
  const result = {
    resultType: "input_required" as const,
    inputRequests: flow.inputRequests,
    ...(flow.requestState === undefined ? {} : { requestState: flow.requestState }),
  };
  return { ...carrierCall(request), round: SAVED_ROUND, result };
}

/**
 * The rounds of one call, run by the SDK's loop with a hook that answers each round the way this CLI
 * does (--answers, --yes, then the person) and ends the process at a round that needs a person when
 * --detach is given: the round is saved (server, call, requestState and the questions) and finished
 * later by `roundtrip resume`. requestState is only ever copied, never read.
 */
export async function driveFlow(
  client: Client,
  request: FlowRequest,
  policy: AnswerPolicy,
  options: FlowOptions,
): Promise<FlowOutcome> {
  let waiting: string[] = [];
  const declined: string[] = [];
  const onRound: RoundHook = async ({ result }) => {
    const requests = result.inputRequests ?? {};
    // A round with only requestState: the server is waiting on something; the SDK backs off and retries.
    if (Object.keys(requests).length === 0) return { kind: "answer" };
    const outcome = await answerRound(requests, policy);
    if (outcome.kind === "answered") {
      declined.push(...declinedKeys(outcome.responses));
      return { kind: "answer", inputResponses: outcome.responses };
    }
    waiting = outcome.waiting;
    return { kind: "stop" };
  };
  const { resume } = options;
  if (client.era === "legacy" && (policy.detach || resume)) throw detachOnSession(client, options.server);
  const start = resume ? savedRound(resume, request) : carrierCall(request);
  const session = new SessionAnswers(client, policy);
  let outcome: RoundsOutcome;
  try {
    outcome = await client.runRounds(start, { onRound });
    session.rethrow();
  } catch (error) {
    session.rethrow();
    if (!(error instanceof InputRequiredRoundsExceededError)) throw error;
    throw new CliError(
      ExitCode.failure,
      `the server kept asking for input for more than ${error.maxRounds} rounds of ${request.method} ${request.target}; it may be stuck, try the call again later`,
      { cause: error },
    );
  }
  if (outcome.kind === "complete") {
    if (resume) await options.pending.delete(resume.id);
    return { kind: "complete", result: outcome.result, declined };
  }
  const { round, result } = outcome.saved;
  const requests = result.inputRequests ?? {};
  const id = resume?.id ?? PendingStore.newId();
  if (resume && round === SAVED_ROUND) {
    // Nothing was sent: the saved round still waits, now for what is still missing.
    await options.pending.save({ ...resume, waiting });
  } else {
    await options.pending.save({
      id,
      createdAt: new Date().toISOString(),
      server: options.server,
      method: request.method,
      target: request.target,
      ...(request.arguments ? { arguments: request.arguments } : {}),
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
      inputRequests: requests,
      waiting,
      serverInfo: policy.asker.info,
    });
  }
  return { kind: "detached", id, waiting, questions: waitingQuestions(requests, waiting) };
}

/**
 * --detach saves a 2026-07-28 round (its requestState and questions) to finish later; a 2025-era
 * server asks during the call, on a session that ends with this process, so nothing can be saved.
 */
function detachOnSession(client: Client, server: string): CliError {
  return new CliError(
    ExitCode.usage,
    `${server} speaks the 2025 era (${client.protocolVersion}), where the server asks its questions during the call and cannot wait for \`roundtrip resume\`: --detach and resume need a 2026-07-28 server. Run the call without --detach and answer in the terminal, or give the answers with --answers FILE or --yes`,
  );
}
