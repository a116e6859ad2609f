import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import {
  ADD_TOOL,
  addText,
  DECLINED_TEXT,
  GREET_STATE,
  GREET_TOOL,
  greetText,
  NAME_FORM,
  NAME_KEY,
  NAME_QUESTION,
} from "../wire/scenario.js";

interface GreetState {
  asked: string;
}

const NameAnswer = z.object({ name: z.string() });
const QUESTION = inputRequired.elicit({ message: NAME_QUESTION, requestedSchema: NAME_FORM });

function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

/**
 * The scenario's server factory on the official TypeScript SDK v2. With `protect`, requestState is
 * minted and verified by the SDK's HMAC codec bound to the method and client (the documented idiom);
 * without, the handler gets the raw echoed string, which is the SDK's default.
 */
export function officialServerFactory(protect: boolean): () => McpServer {
  const codec = protect
    ? createRequestStateCodec<GreetState>({
        key: randomBytes(32),
        ttlSeconds: 600,
        bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ""}`,
      })
    : undefined;

  const asked = (ctx: ServerContext): boolean =>
    codec
      ? ctx.mcpReq.requestState<GreetState>()?.asked === GREET_STATE
      : ctx.mcpReq.requestState<string>() === GREET_STATE;

  const ask = async (ctx: ServerContext): Promise<InputRequiredResult> =>
    inputRequired({
      inputRequests: { [NAME_KEY]: QUESTION },
      requestState: codec ? await codec.mint({ asked: GREET_STATE }, ctx) : GREET_STATE,
    });

  const build = (): McpServer => {
    const server = new McpServer(
      { name: "official-bench", version: "1.0.0" },
      { capabilities: { tools: {} }, ...(codec ? { requestState: { verify: codec.verify } } : {}) },
    );
    server.registerTool(
      GREET_TOOL,
      {
        description: "Greets the user by name, asking for it",
        inputSchema: z.object({ greeting: z.string() }),
      },
      async ({ greeting }, ctx) => {
        if (asked(ctx)) {
          const view = inputResponse(ctx.mcpReq.inputResponses, NAME_KEY);
          if (view.kind === "elicit" && view.action !== "accept") return text(DECLINED_TEXT);
          const content = acceptedContent(ctx.mcpReq.inputResponses, NAME_KEY, NameAnswer);
          if (content) return text(greetText(greeting, content.name));
        }
        return ask(ctx);
      },
    );
    server.registerTool(
      ADD_TOOL,
      { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => text(addText(a, b)),
    );
    return server;
  };
  return build;
}

/** The factory as that SDK's documentation wires it: createMcpHandler, on node:http with toNodeHandler. */
export function officialNodeHandler(protect: boolean): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = toNodeHandler(createMcpHandler(officialServerFactory(protect)));
  return (req, res) => void handle(req, res);
}
