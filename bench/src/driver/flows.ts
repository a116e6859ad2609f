import { type CallParams, toolsCall, toolsList, type WireRequest } from "../wire/mcp-request.js";
import {
  ADD_TOOL,
  addText,
  DECLINED_TEXT,
  GREET_TOOL,
  GREETING,
  greetText,
  NAME_KEY,
} from "../wire/scenario.js";
import { type Flow, FlowError } from "./flow.js";
import type { PostClient } from "./http-client.js";
import { legacyGreet } from "./legacy-greet.js";
import { expectComplete, resultOf, timed } from "./rounds.js";
import { addTask } from "./task-flow.js";

export { type Flow, FlowError };

/** `legacy-greet` is greet on a 2025-11-25 session: the question arrives as a server-to-client request. */
/** `add-task` is add run as a task (the client declares the tasks extension), followed with tasks/get. */
export type FlowKind = "greet" | "decline" | "add" | "list" | "tampered" | "legacy-greet" | "add-task";

const INVALID_PARAMS = -32602;

/** Round 1 of greet: the question and the state to echo. */
async function ask(client: PostClient, seq: number): Promise<{ state: string; ms: number }> {
  const id = seq * 2;
  const { answer, ms } = await timed(
    client,
    id,
    toolsCall(id, { name: GREET_TOOL, arguments: { greeting: GREETING } }),
  );
  const result = resultOf(answer, "round 1");
  if (result.resultType !== "input_required") {
    throw new FlowError(`round 1: resultType ${String(result.resultType)}, expected input_required`);
  }
  const question = (result.inputRequests as Record<string, { method?: unknown }> | undefined)?.[NAME_KEY];
  if (question?.method !== "elicitation/create") throw new FlowError("round 1: no name elicitation");
  if (typeof result.requestState !== "string") throw new FlowError("round 1: no requestState");
  return { state: result.requestState, ms };
}

function retry(seq: number, state: string, response: Record<string, unknown>): WireRequest {
  const params: CallParams = {
    name: GREET_TOOL,
    arguments: { greeting: GREETING },
    inputResponses: { [NAME_KEY]: response },
    requestState: state,
  };
  return toolsCall(seq * 2 + 1, params);
}

const greet: Flow = async (client, seq) => {
  const first = await ask(client, seq);
  const name = `Ada ${seq}`;
  const second = await timed(
    client,
    seq * 2 + 1,
    retry(seq, first.state, { action: "accept", content: { name } }),
  );
  expectComplete(resultOf(second.answer, "round 2"), greetText(GREETING, name), "round 2");
  return [first.ms, second.ms];
};

const decline: Flow = async (client, seq) => {
  const first = await ask(client, seq);
  const second = await timed(client, seq * 2 + 1, retry(seq, first.state, { action: "decline" }));
  expectComplete(resultOf(second.answer, "round 2"), DECLINED_TEXT, "round 2");
  return [first.ms, second.ms];
};

/** Flips one character in the middle, where both SDKs' tokens carry authenticated bytes. */
function tamper(state: string): string {
  const at = Math.floor(state.length / 2);
  const flipped = state[at] === "A" ? "B" : "A";
  return state.slice(0, at) + flipped + state.slice(at + 1);
}

const tampered: Flow = async (client, seq) => {
  const first = await ask(client, seq);
  const name = `Eve ${seq}`;
  const second = await timed(
    client,
    seq * 2 + 1,
    retry(seq, tamper(first.state), { action: "accept", content: { name } }),
  );
  if (second.answer.kind !== "error" || second.answer.code !== INVALID_PARAMS) {
    throw new FlowError("round 2: a tampered requestState was not refused with -32602");
  }
  return [first.ms, second.ms];
};

const add: Flow = async (client, seq) => {
  const a = seq % 1000;
  const b = 7;
  const id = seq * 2;
  const { answer, ms } = await timed(client, id, toolsCall(id, { name: ADD_TOOL, arguments: { a, b } }));
  expectComplete(resultOf(answer, "add"), addText(a, b), "add");
  return [ms];
};

const list: Flow = async (client, seq) => {
  const id = seq * 2;
  const { answer, ms } = await timed(client, id, toolsList(id));
  const tools = resultOf(answer, "tools/list").tools;
  const names = Array.isArray(tools) ? tools.map((tool: { name?: unknown }) => tool.name) : [];
  if (!names.includes(GREET_TOOL) || !names.includes(ADD_TOOL)) {
    throw new FlowError(`tools/list: expected ${GREET_TOOL} and ${ADD_TOOL}, got ${names.join(", ")}`);
  }
  return [ms];
};

export const FLOWS: Readonly<Record<FlowKind, Flow>> = {
  greet,
  decline,
  add,
  list,
  tampered,
  "legacy-greet": legacyGreet,
  "add-task": addTask,
};
