import { McpError } from "../../protocol/errors.js";
import {
  createMessage,
  elicitForm,
  elicitUrl,
  inputRequired,
  listRoots,
} from "../../protocol/input-required.js";
import type { ElicitResult, InputResponses, ListRootsResult } from "../../protocol/schemas/input-required.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import { Server } from "../../server/index.js";
import type { ServerOptions } from "../../server/server.js";

/**
 * A low-level Server whose tools, prompt and resource template need one, two or three rounds of input.
 * Every requestState it mints is deliberately awkward (spaces, quotes, non-ASCII, a line separator,
 * the base64 sentinel) and every retry must echo it exactly, or the call fails.
 */

export const AWKWARD_STATE = ` round "1" é\u2028=?base64?x?= {"k":[1,2]} `;

export const REGION_TOOL: Tool = {
  name: "forecast",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      days: { type: "integer", "x-mcp-header": "Days" },
      note: { type: "string" },
    },
  },
};

export const BAD_HEADER_TOOL: Tool = {
  name: "bad_headers",
  inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
};

const NAME_FORM = elicitForm("What is your name?", {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
});

function accepted(responses: InputResponses | undefined, key: string): Record<string, unknown> | undefined {
  const answer = responses?.[key] as ElicitResult | undefined;
  return answer?.action === "accept" ? answer.content : undefined;
}

function expectState(received: string | undefined, expected: string): void {
  if (received !== expected) {
    throw McpError.invalidParams(`requestState was not echoed exactly: got ${JSON.stringify(received)}`);
  }
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

export interface RoundsServer {
  server: Server;
  /** How many requests each tool, prompt or resource received. */
  calls: Map<string, number>;
}

export interface RoundsOptions extends ServerOptions {
  /** Told when a `wait_for_cancel` call starts waiting, and when its client aborts it. */
  onWaiting?: (requestId: string | number) => void;
  onCancelled?: (requestId: string | number) => void;
}

export function roundsServer(options: RoundsOptions = {}): RoundsServer {
  const calls = new Map<string, number>();
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const server = new Server(
    { name: "rounds", version: "1.0.0" },
    { instructions: "Answer my questions.", ...options },
  );

  server.onListTools(() => ({
    tools: [
      { name: "greet", inputSchema: { type: "object" } },
      { name: "three_rounds", inputSchema: { type: "object" } },
      { name: "state_only", inputSchema: { type: "object", properties: { legs: { type: "integer" } } } },
      { name: "endless", inputSchema: { type: "object" } },
      { name: "two_questions", inputSchema: { type: "object" } },
      { name: "visit", inputSchema: { type: "object" } },
      REGION_TOOL,
      BAD_HEADER_TOOL,
    ],
  }));

  server.onCallTool(async (ctx, params) => {
    count(params.name);
    const responses = params.inputResponses;
    switch (params.name) {
      case "greet": {
        const name = accepted(responses, "user_name")?.name;
        if (typeof name !== "string") {
          return inputRequired({ inputRequests: { user_name: NAME_FORM }, requestState: AWKWARD_STATE });
        }
        expectState(params.requestState, AWKWARD_STATE);
        return text(`Hello, ${name}!`);
      }
      case "three_rounds": {
        if (params.requestState === undefined) {
          return inputRequired({ inputRequests: { step1: NAME_FORM }, requestState: "after-step-1" });
        }
        if (params.requestState === "after-step-1") {
          const name = accepted(responses, "step1")?.name;
          if (typeof name !== "string" || responses?.step2 !== undefined)
            throw McpError.invalidParams("bad round 2");
          return inputRequired({
            inputRequests: {
              step2: createMessage({
                messages: [{ role: "user", content: { type: "text", text: `Greet ${name}` } }],
                maxTokens: 20,
              }),
            },
            requestState: `after-step-2:${name}`,
          });
        }
        if (params.requestState.startsWith("after-step-2:")) {
          if (responses?.step1 !== undefined) throw McpError.invalidParams("round 1 answers were sent again");
          const sampled = responses?.step2 as { content?: { text?: string } } | undefined;
          return inputRequired({
            inputRequests: { step3: listRoots() },
            requestState: `after-step-3:${params.requestState.slice(13)}:${sampled?.content?.text ?? "?"}`,
          });
        }
        const roots = (responses?.step3 as ListRootsResult | undefined)?.roots ?? [];
        return text(`${params.requestState.slice(13)} with ${roots.map((r) => r.uri).join(",")}`);
      }
      case "state_only": {
        const legs = Number(params.arguments?.legs ?? 1);
        const done = Number(params.requestState ?? "0");
        if (done < legs) return inputRequired({ requestState: String(done + 1) });
        return text(`done after ${done} state-only legs`);
      }
      case "endless":
        return inputRequired({
          inputRequests: { again: NAME_FORM },
          requestState: `leg-${calls.get("endless")}`,
        });
      case "two_questions": {
        const first = accepted(responses, "first");
        const second = accepted(responses, "second");
        if (!first || !second) {
          return inputRequired({ inputRequests: { first: NAME_FORM, second: NAME_FORM } });
        }
        return text(`${first.name} and ${second.name}`);
      }
      case "visit": {
        const answer = responses?.consent as ElicitResult | undefined;
        if (!answer)
          return inputRequired({ inputRequests: { consent: elicitUrl("Sign in", "https://example.com/a") } });
        return text(`visit ${answer.action}`);
      }
      case "wait_for_cancel":
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve(), { once: true });
          options.onWaiting?.(ctx.requestId);
        });
        options.onCancelled?.(ctx.requestId);
        return text("cancelled");
      case "forecast":
        return text(`forecast for ${String(params.arguments?.region)} (${ctx.transport.kind})`);
      default:
        throw McpError.invalidParams(`Unknown tool: ${params.name}`);
    }
  });

  server.onGetPrompt((_ctx, params) => {
    count(`prompt:${params.name}`);
    const name = accepted(params.inputResponses, "who")?.name;
    if (typeof name !== "string")
      return inputRequired({ inputRequests: { who: NAME_FORM }, requestState: "prompt-1" });
    expectState(params.requestState, "prompt-1");
    return { messages: [{ role: "user", content: { type: "text", text: `Write to ${name}` } }] };
  });

  server.onListResourceTemplates(() => ({
    resourceTemplates: [{ uriTemplate: "memo://{id}", name: "memo" }],
  }));
  server.onReadResource((_ctx, params) => {
    count(`resource:${params.uri}`);
    const name = accepted(params.inputResponses, "reader")?.name;
    if (typeof name !== "string")
      return inputRequired({ inputRequests: { reader: NAME_FORM }, requestState: "memo-1" });
    expectState(params.requestState, "memo-1");
    return { contents: [{ uri: params.uri, text: `${params.uri} for ${name}` }] };
  });

  return { server, calls };
}
