import { callTool } from "@roundtrip/test-support/wire";
import { type AskedRequest, answerTo } from "./answers.js";
import { legacyRequest, post, postStream } from "./legacy-wire.js";

const CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
const MAX_ROUNDS = 10;

export interface FlowEnd {
  /** The tool's result, or the round that asked for a URL nobody opens. */
  body: unknown;
  /** Every sealed requestState the rounds carried. */
  states: string[];
}

/** A tool call of the 2026-07-28 era driven round by round, each question answered by `answerTo`. */
export async function modernFlow(
  url: string,
  token: string,
  tool: string,
  args: Record<string, unknown>,
  completion: string,
): Promise<FlowEnd> {
  const states: string[] = [];
  let retry: { requestState?: string; inputResponses?: Record<string, unknown> } | undefined;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const reply = await callTool(url, tool, {
      token,
      arguments: args,
      capabilities: CAPABILITIES,
      ...(retry ? { retry } : {}),
    });
    const result = reply.body?.result as
      | { resultType?: string; inputRequests?: Record<string, AskedRequest>; requestState?: string }
      | undefined;
    if (result?.resultType !== "input_required") return { body: reply.body, states };
    if (result.requestState !== undefined) states.push(result.requestState);
    const inputResponses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      const answer = answerTo(request, completion);
      if (answer === undefined) return { body: reply.body, states };
      inputResponses[key] = answer;
    }
    retry = {
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
      inputResponses,
    };
  }
  throw new Error(`${tool} was still asking after ${MAX_ROUNDS} rounds`);
}

/** The same call on a 2025-era session: each question arrives on the call's SSE stream and is POSTed back. */
export async function legacyFlow(
  url: string,
  token: string,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  completion: string,
): Promise<unknown> {
  const call = await postStream(
    url,
    token,
    sessionId,
    legacyRequest("tools/call", { name: tool, arguments: args }),
  );
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const message = (await call.next()).data as AskedRequest & { id?: string | number; result?: unknown };
    if (message.method === undefined) return message;
    const answer = answerTo(message, completion);
    if (answer === undefined) {
      call.drop();
      return message;
    }
    const sent = await post(url, token, sessionId, { jsonrpc: "2.0", id: message.id, result: answer });
    if (sent.status !== 202) throw new Error(`the answer to ${message.method} got HTTP ${sent.status}`);
  }
  throw new Error(`${tool} was still asking after ${MAX_ROUNDS} rounds`);
}
