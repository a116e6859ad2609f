import {
  answer,
  initialize,
  initialized,
  LEGACY_PROTOCOL_VERSION,
  legacyToolsCall,
} from "../wire/legacy-request.js";
import { parseReply, toolText } from "../wire/reply.js";
import { GREET_TOOL, GREETING, greetText, NAME_QUESTION } from "../wire/scenario.js";
import { sseData } from "../wire/sse-events.js";
import { type Flow, FlowError } from "./flow.js";
import type { PostClient } from "./http-client.js";

/**
 * greet as a 2025-11-25 host runs it, on a session opened once and reused: the call's POST opens an
 * SSE stream on which the server sends `elicitation/create`; the driver POSTs the answer on the
 * session and reads the result from the same stream. Round 1 is the call until the question arrives,
 * round 2 the answer until the result does, so the rounds compare with the modern flow's two POSTs.
 */

const now = (): number => performance.now();

/** Opens a session the way the official v1 client does: initialize, then notifications/initialized. */
export async function openSession(client: PostClient, id: number): Promise<string> {
  const reply = await client.open(initialize(id));
  const body = await reply.body.text();
  const parsed = parseReply({ status: reply.status, contentType: reply.contentType, body });
  if (parsed.kind === "error") throw new FlowError(`initialize: error ${parsed.code} ${parsed.message}`);
  if (reply.sessionId === undefined) throw new FlowError("initialize: no Mcp-Session-Id in the answer");
  if (parsed.result.protocolVersion !== LEGACY_PROTOCOL_VERSION) {
    throw new FlowError(`initialize: protocolVersion ${String(parsed.result.protocolVersion)}`);
  }
  const ack = await client.post(initialized(reply.sessionId));
  if (ack.status !== 202) throw new FlowError(`notifications/initialized: HTTP ${ack.status}`);
  return reply.sessionId;
}

type Message = { id?: unknown; method?: unknown; params?: Record<string, unknown> } & Record<string, unknown>;

/** The next JSON-RPC message on the stream that `wanted` accepts; notifications in between are skipped. */
async function next(
  events: AsyncIterator<string>,
  what: string,
  wanted: (message: Message) => boolean,
): Promise<Message> {
  for (let event = await events.next(); !event.done; event = await events.next()) {
    const message = JSON.parse(event.value) as Message;
    if (wanted(message)) return message;
    if (message.id !== undefined) throw new FlowError(`${what}: got ${event.value.slice(0, 160)}`);
  }
  throw new FlowError(`${what}: the stream ended first`);
}

/** Sessions each client has open and not in use: a flow takes one, or opens one, and gives it back. */
const idle = new WeakMap<PostClient, string[]>();

export const legacyGreet: Flow = async (client, seq) => {
  const sessions = idle.get(client) ?? [];
  idle.set(client, sessions);
  const session = sessions.pop() ?? (await openSession(client, seq * 2));
  const id = seq * 2 + 1;
  const name = `Ada ${seq}`;

  const started = now();
  const reply = await client.open(
    legacyToolsCall(id, { name: GREET_TOOL, arguments: { greeting: GREETING } }, session),
  );
  if (!reply.contentType?.startsWith("text/event-stream")) {
    const body = await reply.body.text();
    throw new FlowError(
      `tools/call: HTTP ${reply.status} ${String(reply.contentType)}: ${body.slice(0, 200)}`,
    );
  }
  const events = sseData(reply.body)[Symbol.asyncIterator]();
  const question = await next(events, "the question", (m) => m.method === "elicitation/create");
  if (question.id === undefined || question.params?.message !== NAME_QUESTION) {
    throw new FlowError(`the question: ${JSON.stringify(question).slice(0, 160)}`);
  }
  const asked = now();

  const ack = await client.post(answer(question.id, { action: "accept", content: { name } }, session));
  if (ack.status !== 202) throw new FlowError(`the answer: HTTP ${ack.status} ${ack.body.slice(0, 120)}`);
  const response = await next(events, "the result", (m) => m.id === id);
  const done = now();
  // Read to the end, so the connection goes back to the pool rather than being torn down.
  while (!(await events.next()).done) {}

  const result = response.result as Record<string, unknown> | undefined;
  if (result === undefined) throw new FlowError(`the result: ${JSON.stringify(response).slice(0, 160)}`);
  if (result.isError === true) throw new FlowError(`the result: tool error ${toolText(result)}`);
  if (toolText(result) !== greetText(GREETING, name)) {
    throw new FlowError(`the result: expected "${greetText(GREETING, name)}", got "${toolText(result)}"`);
  }
  sessions.push(session);
  return [asked - started, done - asked];
};
