import type { Client } from "@roundtrip/sdk/client";
import type {
  CreateMessageResult,
  ElicitResult,
  InputRequest,
  InputResponse,
  ListRootsResult,
} from "@roundtrip/sdk/protocol";
import { declinedKeys } from "../flow-declines.js";
import { type AnswerPolicy, answerRound } from "./round-answers.js";

/**
 * A 2025-era server asks during the call, with requests on its session, instead of answering
 * input_required: each one is answered here the way a round's questions are (--answers, --yes, then
 * the person), keyed by the server's request id. A failure of ours (no terminal, a refused sampling)
 * is kept so the command ends with it, not with the error the server makes of it.
 */
export class SessionAnswers {
  #failure: unknown;
  /** The keys declined or cancelled through these callbacks (a task's questions, a session's). */
  readonly declined: string[] = [];

  constructor(client: Client, policy: AnswerPolicy) {
    const answer = async (key: string, request: InputRequest): Promise<InputResponse> => {
      try {
        const outcome = await answerRound({ [key]: request }, { ...policy, detach: false });
        const response = outcome.kind === "answered" ? outcome.responses[key] : undefined;
        if (response === undefined) throw new Error(`no answer for the server's request "${key}"`);
        if (outcome.kind === "answered") this.declined.push(...declinedKeys(outcome.responses));
        return response;
      } catch (error) {
        this.#failure ??= error;
        throw error;
      }
    };
    // Each answer is the response its request's method defines: answerRound checks that already.
    client
      .onElicit(
        (params, { key }) => answer(key, { method: "elicitation/create", params }) as Promise<ElicitResult>,
      )
      .onSample(
        (params, { key }) =>
          answer(key, { method: "sampling/createMessage", params }) as Promise<CreateMessageResult>,
      )
      .onListRoots(
        ({ key }) => answer(key, { method: "roots/list", params: {} }) as Promise<ListRootsResult>,
      );
  }

  /** Rethrows the first failure of an answer given during the call, if there was one. */
  rethrow(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}
