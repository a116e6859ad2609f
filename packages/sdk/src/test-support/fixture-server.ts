import { McpError } from "../protocol/errors.js";
import { elicitForm, inputRequired } from "../protocol/input-required.js";
import { ElicitResultSchema } from "../protocol/schemas/input-required.js";
import type { Tool } from "../protocol/schemas/tools.js";
import { Server } from "../server/index.js";
import type { ServerOptions } from "../server/server.js";
import { AsyncQueue, recordingLogger } from "./in-process.js";

/** A tool whose arguments travel in `Mcp-Param-*` headers too: string, integer, boolean, nested. */
export const WEATHER_TOOL: Tool = {
  name: "weather",
  description: "Forecast for a region",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      days: { type: "integer", "x-mcp-header": "Days" },
      metric: { type: "boolean", "x-mcp-header": "Metric" },
      options: {
        type: "object",
        properties: { station: { type: "string", "x-mcp-header": "Station" } },
      },
      note: { type: "string" },
    },
  },
};

export const ECHO_TOOL: Tool = {
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
};

/** Extra names the echo tool answers to: one that is not safe ASCII, one that looks like the sentinel. */
export const ECHO_ALIASES = ["écho café", "=?base64?SGk=?="] as const;

/** Asks for a name with a form elicitation, then greets; the state carries the round. */
export const ASK_TOOL: Tool = { name: "ask", inputSchema: { type: "object" } };
/** Throws an ordinary Error. */
export const FAIL_TOOL: Tool = { name: "fail", inputSchema: { type: "object" } };
/** Waits until its request is aborted; each call's signal is pushed to `slowCalls`. */
export const SLOW_TOOL: Tool = { name: "slow", inputSchema: { type: "object" } };
/** Reports progress and logs at several levels before answering. */
export const CHATTY_TOOL: Tool = { name: "chatty", inputSchema: { type: "object" } };

const NAME_FORM = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};

export interface Fixture {
  server: Server;
  logger: ReturnType<typeof recordingLogger>;
  /** The AbortSignal of each `slow` call, pushed when the call starts. */
  slowCalls: AsyncQueue<AbortSignal>;
  /** Pushed when a `slow` call saw its signal abort. */
  slowAborted: AsyncQueue<string>;
}

/**
 * A server with every feature: tools (incl. header-mirrored arguments and a multi round-trip flow),
 * prompts, resources and completion. Used by the transport suites.
 */
export function fixtureServer(options: ServerOptions = {}): Fixture {
  const logger = recordingLogger();
  const server = new Server({ name: "roundtrip-fixture", version: "1.2.3" }, { logger, ...options });
  const slowCalls = new AsyncQueue<AbortSignal>();
  const slowAborted = new AsyncQueue<string>();

  server.onListTools(() => ({
    tools: [WEATHER_TOOL, ECHO_TOOL, ASK_TOOL, FAIL_TOOL, SLOW_TOOL, CHATTY_TOOL],
  }));
  server.onCallTool(async (ctx, params) => {
    const args = params.arguments ?? {};
    switch (params.name) {
      case "weather":
      case "echo":
        return { content: [{ type: "text", text: JSON.stringify(args) }] };
      case "ask": {
        const answer = ElicitResultSchema.safeParse(params.inputResponses?.name);
        if (answer.success && answer.data.action === "accept" && answer.data.content) {
          const name = String(answer.data.content.name);
          return { content: [{ type: "text", text: `Hello, ${name} (${params.requestState})` }] };
        }
        return inputRequired({
          inputRequests: { name: elicitForm("Your name?", NAME_FORM) },
          requestState: "round-1",
        });
      }
      case "fail":
        throw new Error("the forecast backend is down");
      case "slow": {
        slowCalls.push(ctx.signal);
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) resolve();
          else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        slowAborted.push(String(ctx.requestId));
        return { content: [{ type: "text", text: "too late" }] };
      }
      case "chatty": {
        await ctx.sendProgress(1, 3, "first");
        await ctx.log("debug", { step: "debug detail" });
        await ctx.log("info", { step: "info detail" }, "chatty");
        await ctx.sendProgress(2, 3);
        await ctx.log("error", "something went wrong");
        await ctx.sendProgress(3, 3, "done");
        return { content: [{ type: "text", text: "chatted" }] };
      }
      default:
        if ((ECHO_ALIASES as readonly string[]).includes(params.name)) {
          return { content: [{ type: "text", text: `${params.name}: ${JSON.stringify(args)}` }] };
        }
        throw unknownName(params.name);
    }
  });
  server.onListPrompts(() => ({ prompts: [{ name: "greet", arguments: [{ name: "who" }] }] }));
  server.onGetPrompt((_ctx, params) => {
    if (params.name !== "greet") throw unknownName(params.name);
    return {
      messages: [
        { role: "user", content: { type: "text", text: `Hello ${params.arguments?.who ?? "you"}` } },
      ],
    };
  });
  server.onListResources(() => ({ resources: [{ uri: "file:///notes/a.txt", name: "a.txt" }] }));
  server.onListResourceTemplates(() => ({
    resourceTemplates: [{ uriTemplate: "file:///notes/{name}", name: "notes" }],
  }));
  server.onReadResource((_ctx, params) => ({
    contents: [{ uri: params.uri, mimeType: "text/plain", text: `contents of ${params.uri}` }],
  }));
  server.onComplete(() => ({ completion: { values: ["alpha", "beta"], total: 2, hasMore: false } }));
  return { server, logger, slowCalls, slowAborted };
}

function unknownName(name: string): McpError {
  return McpError.invalidParams(`Unknown tool or prompt: ${name}`, { name });
}
