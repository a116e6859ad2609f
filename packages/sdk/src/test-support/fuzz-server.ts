import * as z from "zod";
import { elicitForm, inputRequired } from "../protocol/input-required.js";
import { McpServer } from "../server/index.js";
import { toElicitationSchema } from "../server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../server/mcp-server/input-responses.js";
import { recordingLogger } from "./in-process.js";

/** What the fuzzed server's `ask` tool keeps in its (sealed) requestState between rounds. */
export const ASKED = "asked";

const NameForm = z.object({ name: z.string() });

/** A tool whose arguments are mirrored in `Mcp-Param-*` headers: string, integer and boolean. */
export const ROUTE_INPUT = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    fast: { type: "boolean", "x-mcp-header": "Fast" },
  },
} as const;

export function askText(topic: string, name: string): string {
  return `About ${topic}, for ${name}`;
}

/**
 * The server the HTTP fuzz suite attacks: an McpServer with its default sealing, an input-required
 * tool (`ask`) and a tool with x-mcp-header arguments (`route`). Its logger is kept, so the suite can
 * check that nothing it sent made the server log an internal error.
 */
export function fuzzServer() {
  const logger = recordingLogger();
  const mcp = new McpServer({ name: "fuzz-target", version: "1.0.0" }, { logger });
  mcp.tool("ask", { input: z.object({ topic: z.string() }) }, ({ topic }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", NameForm);
    if (answer && ctx.requestState === ASKED) return askText(topic, answer.name);
    return inputRequired({
      inputRequests: { name: elicitForm("Your name?", toElicitationSchema(NameForm)) },
      requestState: ASKED,
    });
  });
  mcp.tool("route", { input: structuredClone(ROUTE_INPUT) }, (args) => JSON.stringify(args));
  return { mcp, logger };
}
