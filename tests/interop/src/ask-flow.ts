/**
 * The flow both servers implement, each with its own SDK, so either client can be checked against
 * either server with the same expectations. A call asks for `rounds` legs: `rounds - 1` questions,
 * one per round, alternating a form elicitation and a sampling request; the answers collected so far
 * travel in requestState (each round's retry carries only that round's answer), and the last leg
 * completes with every answer in order.
 */

export const TOOL = "ask";
export const PROMPT = "ask_prompt";
/** `ask://{rounds}`: a resource template whose reads ask the same questions. */
export const TEMPLATE = "ask://{rounds}";

/** The form every elicit question of the flow asks. */
export const ANSWER_SCHEMA = {
  type: "object" as const,
  properties: { answer: { type: "string" as const } },
  required: ["answer"],
};

export interface AskState {
  answers: string[];
}

export type Question =
  | { kind: "elicit"; key: string; message: string }
  | { kind: "sample"; key: string; message: string };

/** The question of step `index` (0-based): even steps elicit, odd steps sample. */
export function questionAt(index: number): Question {
  const key = `q${index + 1}`;
  const message = `Question ${index + 1}?`;
  return index % 2 === 0 ? { kind: "elicit", key, message } : { kind: "sample", key, message };
}

/** What a client answers, so servers and tests agree on the final text. */
export function elicitAnswer(message: string): string {
  return `A(${message})`;
}
export function sampleAnswer(message: string): string {
  return `S(${message})`;
}

/** The answer an input response carries, whichever kind it is; undefined when it carries none. */
export function answerOf(response: unknown): string | undefined {
  if (typeof response !== "object" || response === null) return undefined;
  const value = response as { action?: unknown; content?: unknown };
  if (value.action === "accept") {
    const answer = (value.content as { answer?: unknown } | undefined)?.answer;
    return typeof answer === "string" ? answer : undefined;
  }
  const content = value.content as { type?: unknown; text?: unknown } | undefined;
  return content?.type === "text" && typeof content.text === "string" ? content.text : undefined;
}

function doneText(answers: readonly string[]): string {
  return `answers: ${answers.join(", ") || "none"}`;
}

/**
 * The whole flow for servers that ask with server-to-client requests (the 2025-era way): `ask` puts
 * each question to the client in turn and returns what the client answered.
 */
export async function askByPush(
  rounds: number,
  ask: (question: Question) => Promise<unknown>,
): Promise<string> {
  const answers: string[] = [];
  for (let index = 0; index < rounds - 1; index++) {
    const question = questionAt(index);
    const answer = answerOf(await ask(question));
    if (answer === undefined) throw new Error(`the client gave no answer to "${question.message}"`);
    answers.push(answer);
  }
  return doneText(answers);
}

/** One step of the flow: the next state, and either the question to ask or the final text. */
export function advance(
  rounds: number,
  state: AskState | undefined,
  responses: Record<string, unknown> | undefined,
): { state: AskState; ask: Question } | { done: string } {
  const answers = [...(state?.answers ?? [])];
  const needed = Math.max(0, rounds - 1);
  if (answers.length < needed) {
    const answer = answerOf(responses?.[questionAt(answers.length).key]);
    if (answer !== undefined) answers.push(answer);
  }
  if (answers.length >= needed) return { done: doneText(answers) };
  // A missing answer re-asks the same question rather than failing, as the protocol advises.
  return { state: { answers }, ask: questionAt(answers.length) };
}

/** The final text for `rounds` legs when the client answers as elicitAnswer/sampleAnswer say. */
export function expectedText(rounds: number): string {
  const answers: string[] = [];
  for (let index = 0; index < rounds - 1; index++) {
    const question = questionAt(index);
    answers.push(
      question.kind === "elicit" ? elicitAnswer(question.message) : sampleAnswer(question.message),
    );
  }
  return doneText(answers);
}
