import { type InputRequiredResult, type InputResponses, isInputRequiredResult } from "@roundtrip/sdk";

/**
 * Multi-round calls of the reference server's example tools as its suites drive them: reading a round's
 * result, and answering what create_service and deploy ask.
 */

/** What a retry of a round carries: the state it was handed and the answers to its questions. */
export type Retry = { requestState?: string; inputResponses?: InputResponses };

/** `result` as a round that asks for another, with the requestState to send back; throws on anything else. */
export function another(result: unknown): InputRequiredResult & { requestState: string } {
  if (!isInputRequiredResult(result) || typeof result.requestState !== "string") {
    throw new Error(`expected another round, got ${JSON.stringify(result)}`);
  }
  return result as InputRequiredResult & { requestState: string };
}

/** The text of a tool result's content blocks, joined. */
export const textOf = (result: unknown): string =>
  ((result as { content?: { text?: string }[] }).content ?? []).map((block) => block.text ?? "").join("");

/** The URL of the approval page a deploy's approval round asks the user to open; throws when it names none. */
export function approvalUrlOf(result: InputRequiredResult): string {
  const request = result.inputRequests?.approval as { params?: { url?: string } } | undefined;
  const url = request?.params?.url;
  if (url === undefined) throw new Error(`no approval URL in ${JSON.stringify(result)}`);
  return url;
}

/** deploy's confirmation, answered yes. */
export const CONFIRMED: InputResponses = { confirm: { action: "accept", content: { confirm: true } } };

/** deploy's approval round, answered once the release was approved on its page. */
export const OPENED: InputResponses = { approval: { action: "accept" } };

/** What create_service asks, answered: `choices.runtime`, `choices.tier`, then yes to the confirmation. */
export function createServiceAnswers(
  result: InputRequiredResult,
  choices: { runtime: string; tier: string },
): InputResponses {
  const responses: InputResponses = {};
  for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
    const schema = JSON.stringify((request.params as { requestedSchema?: unknown }).requestedSchema);
    const content: Record<string, string | boolean> = schema.includes('"runtime"')
      ? { runtime: choices.runtime }
      : schema.includes('"tier"')
        ? { tier: choices.tier }
        : { confirm: true };
    responses[key] = { action: "accept", content };
  }
  return responses;
}
