import {
  createMessage,
  elicitForm,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  McpError,
} from "@roundtrip/sdk";
import { ANSWER_SCHEMA, type AskState, advance, type Question } from "./ask-flow.js";

/**
 * One step of the ask flow with Roundtrip's input-required builders, for both of Roundtrip's servers
 * (the low-level Server and McpServer read `requestState` and `inputResponses` under the same names).
 * The state is plain JSON: sealing is the server's business, not the flow's.
 */

function embedded(question: Question): InputRequest {
  if (question.kind === "elicit") {
    return elicitForm(question.message, ANSWER_SCHEMA);
  }
  return createMessage({
    messages: [{ role: "user", content: { type: "text", text: question.message } }],
    maxTokens: 20,
  });
}

function readState(raw: string | undefined): AskState | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as AskState;
    if (Array.isArray(parsed.answers) && parsed.answers.every((a) => typeof a === "string")) return parsed;
  } catch {}
  throw McpError.invalidParams("Invalid or expired requestState", { reason: "invalid_request_state" });
}

export type AskStep = { done: string } | { pending: InputRequiredResult };

export function askStep(
  rounds: number,
  params: { requestState?: string | undefined; inputResponses?: Record<string, unknown> | undefined },
): AskStep {
  const outcome = advance(rounds, readState(params.requestState), params.inputResponses);
  if ("done" in outcome) return { done: outcome.done };
  return {
    pending: inputRequired({
      inputRequests: { [outcome.ask.key]: embedded(outcome.ask) },
      // Key order and spacing are part of the bytes a client must echo.
      requestState: JSON.stringify(outcome.state, null, 1),
    }),
  };
}
