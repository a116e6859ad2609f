import Fastify, { type FastifyInstance } from "fastify";
import {
  DECLINED_TEXT,
  GREET_STATE,
  greetText,
  NAME_FORM,
  NAME_KEY,
  NAME_QUESTION,
} from "../wire/scenario.js";

interface FloorBody {
  id?: unknown;
  params?: {
    arguments?: { greeting?: unknown };
    inputResponses?: Record<string, { action?: unknown; content?: { name?: unknown } }>;
    requestState?: unknown;
  };
}

const QUESTION = {
  method: "elicitation/create",
  params: { mode: "form", message: NAME_QUESTION, requestedSchema: NAME_FORM },
};

/**
 * The floor: a bare Fastify route that answers each round of the greet flow with the same JSON an MCP
 * server sends, with no MCP processing at all (no envelope, header or schema checks, no state
 * protection). What the HTTP stack and JSON alone cost on this machine.
 */
export function floorApp(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.post<{ Body: FloorBody }>("/mcp", async (request) => {
    const { id, params } = request.body;
    const answer = params?.inputResponses?.[NAME_KEY];
    if (params?.requestState === GREET_STATE && answer) {
      const text =
        answer.action === "accept"
          ? greetText(String(params.arguments?.greeting), String(answer.content?.name))
          : DECLINED_TEXT;
      return { jsonrpc: "2.0", id, result: { resultType: "complete", content: [{ type: "text", text }] } };
    }
    return {
      jsonrpc: "2.0",
      id,
      result: {
        resultType: "input_required",
        inputRequests: { [NAME_KEY]: QUESTION },
        requestState: GREET_STATE,
      },
    };
  });
  return app;
}
