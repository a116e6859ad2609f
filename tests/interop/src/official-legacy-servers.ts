import { randomUUID } from "node:crypto";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import {
  McpServer as V1McpServer,
  ResourceTemplate as V1Template,
} from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport as V1Transport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { McpServer as V2McpServer, ResourceTemplate as V2Template } from "@modelcontextprotocol/server";
import * as z from "zod";
import { ANSWER_SCHEMA, askByPush, PROMPT, type Question, TEMPLATE, TOOL } from "./ask-flow.js";
import {
  ADD,
  APPROVAL_MESSAGE,
  APPROVAL_URL,
  APPROVE,
  addText,
  approvalText,
  CONFIRM_SCHEMA,
  confirmQuestion,
  firstMessageText,
  NAME_SCHEMA,
  nameQuestion,
  REGISTER,
  registerText,
  rootsText,
  SUMMARIZE,
  summarizePrompt,
  summaryText,
  WORKSPACE,
} from "./bridge-scenario.js";
import { listenSessionful, type SessionfulServer } from "./sessionful.js";

/**
 * The bridge scenario on the official SDKs' servers as 2025-era deployments run them: McpServer on a
 * sessionful Streamable HTTP transport per session, v1 (1.32.2) and v2 (2.4). Their tools ask the
 * 2025 way, with server-to-client requests on the call's stream (`server.server.elicitInput`,
 * `createMessage`, `listRoots`), which Roundtrip's client answers with its callbacks.
 */

/** The three ways these servers put a question to the client, tied to the call that asks. */
interface Asker {
  elicitUrl(message: string, url: string): Promise<{ action: string }>;
  elicit(
    message: string,
    requestedSchema: typeof NAME_SCHEMA | typeof CONFIRM_SCHEMA | typeof ANSWER_SCHEMA,
  ): Promise<{
    action: string;
    content?: Record<string, unknown>;
  }>;
  sample(text: string): Promise<{ content: unknown }>;
  roots(): Promise<{ roots: { uri: string }[] }>;
}

/** The scenario's answers, whichever SDK asked. */
const scenario = {
  async register(user: string, ask: Asker): Promise<string> {
    const named = await ask.elicit(nameQuestion(user), NAME_SCHEMA);
    const name = named.action === "accept" ? String(named.content?.name) : "nobody";
    const confirmed = await ask.elicit(confirmQuestion(name), CONFIRM_SCHEMA);
    return registerText(name, confirmed.action === "accept" && confirmed.content?.confirm === true);
  },
  async summarize(text: string, ask: Asker): Promise<string> {
    return summaryText(firstMessageText([await ask.sample(summarizePrompt(text))]));
  },
  async approve(ask: Asker): Promise<string> {
    return approvalText((await ask.elicitUrl(APPROVAL_MESSAGE, APPROVAL_URL)).action);
  },
  async workspace(ask: Asker): Promise<string> {
    return rootsText((await ask.roots()).roots);
  },
  ask(rounds: number, ask: Asker): Promise<string> {
    return askByPush(rounds, (question: Question) =>
      question.kind === "elicit" ? ask.elicit(question.message, ANSWER_SCHEMA) : ask.sample(question.message),
    );
  },
};

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const userMessage = (value: string) => ({
  messages: [{ role: "user" as const, content: { type: "text" as const, text: value } }],
});
const CAPABILITIES = { tools: {}, prompts: {}, resources: {} };

/** The server side of one server-to-client request family, as both SDKs' `Server` spell it. */
interface PushingServer {
  elicitInput(params: object, options: object): Promise<unknown>;
  createMessage(params: object, options: object): Promise<unknown>;
  listRoots(params: undefined, options: object): Promise<unknown>;
}

/**
 * A call's questions go out tied to it and carry its signal, as a deployment writes them: when the
 * client cancels the call, the server cancels its pending question too instead of waiting on it.
 */
function askerFor(server: PushingServer, relatedRequestId: string | number, signal: AbortSignal): Asker {
  const options = { relatedRequestId, signal };
  return {
    // 2025-11-25 names each URL elicitation, so that a completion notice can point at it.
    elicitUrl: (message, url) =>
      server.elicitInput({ mode: "url", message, url, elicitationId: randomUUID() }, options) as ReturnType<
        Asker["elicitUrl"]
      >,
    elicit: (message, requestedSchema) =>
      server.elicitInput({ mode: "form", message, requestedSchema }, options) as ReturnType<Asker["elicit"]>,
    sample: (value) =>
      server.createMessage({ ...userMessage(value), maxTokens: 50 }, options) as ReturnType<Asker["sample"]>,
    roots: () => server.listRoots(undefined, options) as ReturnType<Asker["roots"]>,
  };
}

/**
 * The `register` calls whose signal aborted before the server closed, by user: the official SDKs
 * abort a request's signal when notifications/cancelled names it (and on close, after every test).
 */
export type CancelledCalls = string[];

function noticeCancel(user: string, signal: AbortSignal, cancelled: CancelledCalls): void {
  signal.addEventListener("abort", () => cancelled.push(user), { once: true });
}

function v1Server(cancelled: CancelledCalls): V1McpServer {
  const server = new V1McpServer(
    { name: "official-v1-bridge", version: "1.32.2" },
    { capabilities: CAPABILITIES },
  );
  const asker = (extra: { requestId: string | number; signal: AbortSignal }) =>
    askerFor(server.server as unknown as PushingServer, extra.requestId, extra.signal);
  server.registerTool(ADD, { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
    text(addText(a, b)),
  );
  server.registerTool(TOOL, { inputSchema: { rounds: z.number().int() } }, async ({ rounds }, extra) =>
    text(await scenario.ask(rounds, asker(extra))),
  );
  server.registerTool(REGISTER, { inputSchema: { user: z.string() } }, async ({ user }, extra) => {
    noticeCancel(user, extra.signal, cancelled);
    return text(await scenario.register(user, asker(extra)));
  });
  server.registerTool(SUMMARIZE, { inputSchema: { text: z.string() } }, async (args, extra) =>
    text(await scenario.summarize(args.text, asker(extra))),
  );
  server.registerTool(WORKSPACE, {}, async (extra) => text(await scenario.workspace(asker(extra))));
  server.registerTool(APPROVE, {}, async (extra) => text(await scenario.approve(asker(extra))));
  server.registerPrompt(PROMPT, { argsSchema: { rounds: z.string() } }, async ({ rounds }, extra) =>
    userMessage(await scenario.ask(Number(rounds), asker(extra))),
  );
  server.registerResource(
    "ask",
    new V1Template(TEMPLATE, { list: undefined }),
    {},
    async (uri, variables, extra) => ({
      contents: [{ uri: uri.href, text: await scenario.ask(Number(variables.rounds), asker(extra)) }],
    }),
  );
  return server;
}

function v2Server(cancelled: CancelledCalls): V2McpServer {
  const server = new V2McpServer(
    { name: "official-v2-bridge", version: "2.4.0" },
    { capabilities: CAPABILITIES },
  );
  const asker = (ctx: { mcpReq: { id: string | number; signal: AbortSignal } }) =>
    askerFor(server.server as unknown as PushingServer, ctx.mcpReq.id, ctx.mcpReq.signal);
  server.registerTool(ADD, { inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) =>
    text(addText(a, b)),
  );
  server.registerTool(
    TOOL,
    { inputSchema: z.object({ rounds: z.number().int() }) },
    async ({ rounds }, ctx) => text(await scenario.ask(rounds, asker(ctx))),
  );
  server.registerTool(REGISTER, { inputSchema: z.object({ user: z.string() }) }, async ({ user }, ctx) => {
    noticeCancel(user, ctx.mcpReq.signal, cancelled);
    return text(await scenario.register(user, asker(ctx)));
  });
  server.registerTool(SUMMARIZE, { inputSchema: z.object({ text: z.string() }) }, async (args, ctx) =>
    text(await scenario.summarize(args.text, asker(ctx))),
  );
  server.registerTool(WORKSPACE, {}, async (ctx) => text(await scenario.workspace(asker(ctx))));
  server.registerTool(APPROVE, {}, async (ctx) => text(await scenario.approve(asker(ctx))));
  server.registerPrompt(PROMPT, { argsSchema: z.object({ rounds: z.string() }) }, async ({ rounds }, ctx) =>
    userMessage(await scenario.ask(Number(rounds), asker(ctx))),
  );
  server.registerResource(
    "ask",
    new V2Template(TEMPLATE, { list: undefined }),
    {},
    async (uri, variables, ctx) => ({
      contents: [{ uri: uri.href, text: await scenario.ask(Number(variables.rounds), asker(ctx)) }],
    }),
  );
  return server;
}

export interface OfficialLegacyServer extends SessionfulServer {
  /** Every session's cancelled calls, in the order the server saw them. */
  cancelled: CancelledCalls;
}

export async function startOfficialV1Server(): Promise<OfficialLegacyServer> {
  const cancelled: CancelledCalls = [];
  const listening = await listenSessionful(async ({ opened, closed }) => {
    const transport = new V1Transport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: opened,
      onsessionclosed: closed,
    });
    await v1Server(cancelled).connect(transport);
    return transport;
  });
  return { ...listening, cancelled };
}

export async function startOfficialV2Server(): Promise<OfficialLegacyServer> {
  const cancelled: CancelledCalls = [];
  const listening = await listenSessionful(async ({ opened, closed }) => {
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: opened,
      onsessionclosed: closed,
    });
    await v2Server(cancelled).connect(transport);
    return transport;
  });
  return { ...listening, cancelled };
}
