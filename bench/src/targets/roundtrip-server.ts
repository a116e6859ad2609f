import {
  type CallToolResult,
  elicitForm,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpError,
  type Tool,
} from "@roundtrip/sdk";
import type { CallToolParams } from "@roundtrip/sdk/protocol";
import { requestStateBoundary, Server } from "@roundtrip/sdk/server";
import { RequestStateSecurity } from "@roundtrip/sealing";
import {
  ADD_INPUT_SCHEMA,
  ADD_TOOL,
  addText,
  DECLINED_TEXT,
  GREET_INPUT_SCHEMA,
  GREET_STATE,
  GREET_TOOL,
  greetText,
  NAME_FORM,
  NAME_KEY,
  NAME_QUESTION,
} from "../wire/scenario.js";
import { passThroughCodec } from "./pass-through-codec.js";
import { quietLogger } from "./quiet-logger.js";

const NAME = "roundtrip-bench";
const QUESTION = elicitForm(NAME_QUESTION, NAME_FORM);
const TOOLS: Tool[] = [
  {
    name: GREET_TOOL,
    description: "Greets the user by name, asking for it",
    inputSchema: GREET_INPUT_SCHEMA,
  },
  { name: ADD_TOOL, description: "Adds two numbers", inputSchema: ADD_INPUT_SCHEMA },
];

type ToolAnswer = Omit<CallToolResult, "resultType"> | InputRequiredResult;

function text(value: string): ToolAnswer {
  return { content: [{ type: "text", text: value }] };
}

function greet(params: CallToolParams): ToolAnswer {
  const greeting = params.arguments?.greeting;
  if (typeof greeting !== "string") throw McpError.invalidParams("greeting: expected a string");
  if (params.requestState === GREET_STATE) {
    const answer = inputResponse(params.inputResponses, NAME_KEY);
    if (answer.kind === "declined" || answer.kind === "cancelled") return text(DECLINED_TEXT);
    const name = answer.kind === "accepted" ? answer.content?.name : undefined;
    if (typeof name === "string") return text(greetText(greeting, name));
  }
  return inputRequired({ inputRequests: { [NAME_KEY]: QUESTION }, requestState: GREET_STATE });
}

function add(params: CallToolParams): ToolAnswer {
  const { a, b } = params.arguments ?? {};
  if (typeof a !== "number" || typeof b !== "number") throw McpError.invalidParams("a, b: expected numbers");
  return text(addText(a, b));
}

/**
 * How the low-level Server treats requestState: `aes-gcm` is the boundary McpServer installs,
 * `pass-through` the same boundary with a codec that encrypts nothing (to split the cost), `off` none.
 */
export type BenchSealing = "aes-gcm" | "pass-through" | "off";

/**
 * The scenario on the low-level Server, the only way to compare sealing on and off: McpServer always
 * installs the request-state boundary.
 */
export function benchLowLevelServer(sealing: BenchSealing): Server {
  const server = new Server({ name: NAME, version: "1.0.0" }, { logger: quietLogger });
  if (sealing !== "off") {
    const security =
      sealing === "aes-gcm"
        ? RequestStateSecurity.ephemeral()
        : new RequestStateSecurity({ codec: passThroughCodec });
    server.use(requestStateBoundary(security, { defaultAudience: NAME, logger: quietLogger }));
  }
  server.onListTools(() => ({ tools: TOOLS }));
  server.onCallTool((_ctx, params) => {
    if (params.name === GREET_TOOL) return greet(params);
    if (params.name === ADD_TOOL) return add(params);
    throw McpError.invalidParams(`Unknown tool: ${params.name}`);
  });
  return server;
}
