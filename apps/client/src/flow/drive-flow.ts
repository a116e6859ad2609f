import {
  type CarrierCall,
  type Client,
  InputRequiredRoundsExceededError,
  type RoundHook,
  type RoundsOutcome,
  type SavedRound,
  type TaskHandle,
} from "@roundtrip/sdk/client";
import type { CarrierMethod, InputRequest } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";
import { declinedKeys } from "../flow-declines.js";
import { type PendingFlow, PendingStore } from "../pending-store.js";
import type { PendingTasks } from "../pending-tasks.js";
import { settleDeadFlow } from "./dead-flow.js";
import { type AnswerPolicy, answerRound } from "./round-answers.js";
import { RoundProgress } from "./round-progress.js";
import { checkSavedFlow } from "./saved-state.js";
import { SessionAnswers } from "./session-answers.js";
import { cancelledTask, TaskWatch } from "./task-watch.js";
import { UrlWaits } from "./url-waits.js";
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
  | { kind: "detached"; id: string; waiting: string[]; questions: WaitingQuestion[] }
  /** The server ran the call as a task, left running and saved to `resume`. */
  | { kind: "task-detached"; id: string; task: TaskHandle };

export interface FlowOptions {
  server: string;
  pending: PendingStore;
  /** Where a task the call turns into is saved when the person stops following it. */
  tasks: PendingTasks;
  /** false for a --stdio server: it ends with this process, so neither flow nor task can be resumed. */
  canDetach: boolean;
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

/**
 * Rounds one run may take before the flow counts as stuck, as the SDK's own bound would say. Polls for
 * a page the person agreed to open do not count: they are bounded by time instead (url-waits.ts), so
 * the connection lifts the SDK's bound and this one applies.
 */
export const MAX_ROUNDS = 10;

export function carrierCall(request: FlowRequest): CarrierCall {
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
  let waitedFor: Record<string, InputRequest> = {};
  const declined: string[] = [];
  let rounds = 0;
  const progress = new RoundProgress(policy.terminal, request, options.server);
  const waits = new UrlWaits(policy.terminal);
  const onRound: RoundHook = async ({ round, result }) => {
    progress.received(round, result, options.resume !== undefined && round === SAVED_ROUND);
    const requests = result.inputRequests ?? {};
    const withState = result.requestState !== undefined;
    const wait = waits.waitOf(requests);
    if (wait) {
      if ((await waits.pause()) === "detach") {
        waiting = wait.keys;
        waitedFor = wait.requests;
        return { kind: "stop" };
      }
      // The poll itself is quick; what is waited on is the page, which the status said already.
      progress.sent(Object.keys(wait.responses ?? {}), withState);
      return wait.responses ? { kind: "answer", inputResponses: wait.responses } : { kind: "answer" };
    }
    rounds += 1;
    if (rounds > MAX_ROUNDS) throw stuck(request, MAX_ROUNDS);
    // A round with only requestState: the server is working on something; the SDK backs off and retries.
    if (Object.keys(requests).length === 0) {
      progress.sent([], withState, true);
      return { kind: "answer" };
    }
    const known = waits.known(requests);
    const rest = Object.fromEntries(Object.entries(requests).filter(([key]) => !(key in known)));
    // `resume <id> --detach` is there to answer the saved questions and detach at the next ones: on the
    // saved round a terminal asks; only where nobody can be asked does the flow stay saved as it was.
    const resumedRound = options.resume !== undefined && round === SAVED_ROUND;
    const detach = policy.detach && !(resumedRound && policy.terminal.interactive);
    const outcome = await answerRound(rest, detach === policy.detach ? policy : { ...policy, detach });
    if (outcome.kind === "answered") {
      declined.push(...declinedKeys(outcome.responses));
      const responses = { ...known, ...outcome.responses };
      waits.remember(requests, responses);
      progress.sent(Object.keys(responses), withState);
      return { kind: "answer", inputResponses: responses };
    }
    waiting = outcome.waiting;
    return { kind: "stop" };
  };
  let { resume } = options;
  if (client.era === "legacy" && (policy.detach || resume)) throw detachOnSession(client, options.server);
  if (resume) {
    // Before anyone answers: a state the server can no longer open would waste every answer.
    const check = await checkSavedFlow(client, carrierCall(request), resume, options.pending);
    if (check.kind === "refused") throw await settleDeadFlow(resume, options.server, options.pending, policy);
    if (check.kind === "complete") return { kind: "complete", result: check.result, declined };
    resume = check.flow;
  }
  const start = resume ? savedRound(resume, request) : carrierCall(request);
  const session = new SessionAnswers(client, policy);
  const watch = new TaskWatch({
    terminal: policy.terminal,
    tasks: options.tasks,
    server: options.server,
    serverInfo: () => policy.asker.info,
    detachAtOnce: policy.detach,
    canDetach: options.canDetach,
  });
  let outcome: RoundsOutcome;
  try {
    if (!resume) progress.sent([], false);
    outcome = await client.runRounds(start, { onRound, ...watch.callOptions });
    await watch.settle(client, undefined);
    session.rethrow();
  } catch (error) {
    const stop = await watch.settle(client, error);
    if (stop?.kind === "detached") return { kind: "task-detached", id: stop.id, task: stop.task };
    if (stop?.kind === "cancelled") throw cancelledTask();
    session.rethrow();
    if (!(error instanceof InputRequiredRoundsExceededError)) throw error;
    throw stuck(request, error.maxRounds, error);
  } finally {
    progress.done();
  }
  if (outcome.kind === "complete") {
    progress.completed(request.method === "tools/call" && outcome.result.isError === true);
    if (resume) await options.pending.delete(resume.id);
    // A task's questions (and a 2025 session's) were answered through the callbacks, not in rounds.
    return { kind: "complete", result: outcome.result, declined: [...declined, ...session.declined] };
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
  const questions = waitingQuestions({ ...waitedFor, ...requests }, waiting);
  return { kind: "detached", id, waiting, questions };
}

function stuck(request: FlowRequest, rounds: number, cause?: unknown): CliError {
  return new CliError(
    ExitCode.failure,
    `the server kept asking for input for more than ${rounds} rounds of ${request.method} ${request.target}; it may be stuck, try the call again later`,
    cause === undefined ? {} : { cause },
  );
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
