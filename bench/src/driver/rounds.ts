import type { WireRequest } from "../wire/mcp-request.js";
import { type JsonRpcAnswer, parseReply, toolText } from "../wire/reply.js";
import { FlowError } from "./flow.js";
import type { PostClient } from "./http-client.js";

/** One request of a flow: its parsed answer, checked against its id, and its latency. */
export async function timed(
  client: PostClient,
  id: number,
  message: WireRequest,
): Promise<{ answer: JsonRpcAnswer; ms: number }> {
  const started = process.hrtime.bigint();
  const reply = await client.post(message);
  const answer = parseReply(reply);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (answer.id !== id) throw new FlowError(`answer id ${String(answer.id)} for request ${id}`);
  if (answer.kind === "result" && reply.status !== 200) {
    throw new FlowError(`a result came with HTTP ${reply.status}`);
  }
  return { answer, ms };
}

export function resultOf(answer: JsonRpcAnswer, step: string): Record<string, unknown> {
  if (answer.kind === "error") throw new FlowError(`${step}: error ${answer.code} ${answer.message}`);
  return answer.result;
}

/** Clients read an absent resultType as complete. */
export function expectComplete(result: Record<string, unknown>, text: string, step: string): void {
  const type = result.resultType ?? "complete";
  if (type !== "complete") throw new FlowError(`${step}: resultType ${String(type)}`);
  if (result.isError === true) throw new FlowError(`${step}: tool error ${toolText(result)}`);
  const got = toolText(result);
  if (got !== text) throw new FlowError(`${step}: expected "${text}", got "${got}"`);
}
