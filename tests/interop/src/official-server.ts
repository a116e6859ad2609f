import { randomBytes } from "node:crypto";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  createRequestStateCodec,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  McpServer,
  ResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import { ANSWER_SCHEMA, type AskState, advance, PROMPT, type Question, TEMPLATE, TOOL } from "./ask-flow.js";
import { type Listening, listen } from "./listen.js";

/**
 * The ask flow on the official TypeScript SDK v2 server: McpServer behind createMcpHandler and
 * toNodeHandler on node:http, requestState minted and verified by its HMAC codec, bound to the method.
 */

function embedded(question: Question): InputRequest {
  if (question.kind === "elicit") {
    return inputRequired.elicit({ message: question.message, requestedSchema: ANSWER_SCHEMA });
  }
  return inputRequired.createMessage({
    messages: [{ role: "user", content: { type: "text", text: question.message } }],
    maxTokens: 20,
  });
}

export interface OfficialServer extends Listening {
  /** Every requestState the server minted, in order, to compare with what clients echo. */
  minted: string[];
}

export async function startOfficialServer(): Promise<OfficialServer> {
  const codec = createRequestStateCodec<AskState>({
    key: randomBytes(32),
    ttlSeconds: 300,
    bind: (ctx) => ctx.mcpReq.method,
  });
  const minted: string[] = [];

  async function step(
    rounds: number,
    ctx: ServerContext,
  ): Promise<{ done: string } | { pending: InputRequiredResult }> {
    const outcome = advance(rounds, ctx.mcpReq.requestState<AskState>(), ctx.mcpReq.inputResponses);
    if ("done" in outcome) return { done: outcome.done };
    const requestState = await codec.mint(outcome.state, ctx);
    minted.push(requestState);
    return {
      pending: inputRequired({ inputRequests: { [outcome.ask.key]: embedded(outcome.ask) }, requestState }),
    };
  }

  const build = () => {
    const server = new McpServer(
      { name: "official-ask", version: "2.4.0" },
      { capabilities: { tools: {}, prompts: {}, resources: {} }, requestState: { verify: codec.verify } },
    );
    server.registerTool(
      TOOL,
      { inputSchema: z.object({ rounds: z.number().int() }) },
      async ({ rounds }, ctx) => {
        const result = await step(rounds, ctx);
        return "pending" in result ? result.pending : { content: [{ type: "text", text: result.done }] };
      },
    );
    server.registerPrompt(
      PROMPT,
      { argsSchema: z.object({ rounds: z.string() }) },
      async ({ rounds }, ctx) => {
        const result = await step(Number(rounds), ctx);
        return "pending" in result
          ? result.pending
          : { messages: [{ role: "user", content: { type: "text", text: result.done } }] };
      },
    );
    server.registerResource(
      "ask",
      new ResourceTemplate(TEMPLATE, { list: undefined }),
      {},
      async (uri, variables, ctx) => {
        const result = await step(Number(variables.rounds), ctx);
        return "pending" in result ? result.pending : { contents: [{ uri: uri.href, text: result.done }] };
      },
    );
    return server;
  };

  const handle = toNodeHandler(createMcpHandler(build));
  const listening = await listen((req, res) => handle(req, res));
  return { ...listening, minted };
}
