import { acceptedContent, elicitForm, inputRequired, inputResponse, McpServer } from "@roundtrip/sdk";
import type { OnceStore, Tasks } from "@roundtrip/sdk/server";
import type { RequestStateSecurity } from "@roundtrip/sealing";
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
import { quietLogger } from "./quiet-logger.js";

const NameAnswer = z.object({ name: z.string() });
const QUESTION = elicitForm(NAME_QUESTION, NAME_FORM);

/**
 * The scenario on the high-level McpServer, with its default sealing of requestState (a key of its
 * own) or `security` (a fleet's shared key). With `once`, greet is a once-tool on that ledger: the
 * same flow, each completing round claimed and recorded. With `tasks`, add runs only as a task.
 */
export function benchMcpServer(
  options: { once?: OnceStore; security?: RequestStateSecurity; tasks?: Tasks } = {},
): McpServer {
  const mcp = new McpServer(
    { name: "roundtrip-bench", version: "1.0.0" },
    {
      logger: quietLogger,
      // Every bench session is anonymous, so all of them belong to one principal: lift its cap (100 by
      // default) for the idle-session measurement. Nothing on the 2026-07-28 path reads it.
      legacy: { maxSessionsPerPrincipal: 1_000_000 },
      ...(options.once ? { once: { store: options.once } } : {}),
      ...(options.security ? { requestStateSecurity: options.security } : {}),
      ...(options.tasks ? { tasks: options.tasks } : {}),
    },
  );
  mcp.tool(
    GREET_TOOL,
    {
      description: "Greets the user by name, asking for it",
      input: z.object({ greeting: z.string() }),
      once: options.once !== undefined,
    },
    ({ greeting }, ctx) => {
      if (ctx.requestState === GREET_STATE) {
        const answer = inputResponse(ctx.inputResponses, NAME_KEY);
        if (answer.kind === "declined" || answer.kind === "cancelled") return DECLINED_TEXT;
        const content = acceptedContent(ctx.inputResponses, NAME_KEY, NameAnswer);
        if (content) return greetText(greeting, content.name);
      }
      return inputRequired({ inputRequests: { [NAME_KEY]: QUESTION }, requestState: GREET_STATE });
    },
  );
  mcp.tool(
    ADD_TOOL,
    {
      description: "Adds two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      ...(options.tasks ? { task: "required" as const } : {}),
    },
    ({ a, b }) => addText(a, b),
  );
  return mcp;
}
