import {
  ask,
  createNodeHandler,
  elicitUrl,
  inputRequired,
  inputResponse,
  listRoots,
  McpServer,
  resolver,
} from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { Tasks } from "@roundtrip/sdk/server";
import * as z from "zod";
import { PROMPT, TEMPLATE, TOOL } from "./ask-flow.js";
import {
  ADD,
  APPROVAL_MESSAGE,
  APPROVAL_URL,
  APPROVE,
  addText,
  approvalText,
  confirmQuestion,
  firstMessageText,
  nameQuestion,
  REGISTER,
  REGISTER_TASK,
  registerText,
  rootsText,
  SUMMARIZE,
  summarizePrompt,
  summaryText,
  WORKSPACE,
} from "./bridge-scenario.js";
import { type Listening, listen } from "./listen.js";
import { askStep } from "./roundtrip-ask.js";
import { Tally } from "./tally.js";

/**
 * The bridge scenario on Roundtrip's McpServer, with the defaults a user gets (sealed state, both eras
 * on one endpoint): hand-built rounds (`ask`, the prompt, the template, `workspace`, `approve`) and resolvers
 * (`register`, `summarize`), so a 2025-era client exercises both channels through the bridge.
 */

export interface ScenarioServer {
  readonly mcp: McpServer;
  /** Each handler run, by tool, prompt or template name. */
  readonly calls: Tally;
}

const name = resolver(({ args }: { args: { user: string } }) =>
  ask.elicit(nameQuestion(args.user), z.object({ name: z.string() })),
);
const confirm = resolver(
  { name },
  ({ name }) => ask.elicit(confirmQuestion(name.name), z.object({ confirm: z.boolean() })),
  { onDecline: "outcome" },
);
const summary = resolver(({ args }: { args: { text: string } }) =>
  ask.sample({
    messages: [{ role: "user", content: { type: "text", text: summarizePrompt(args.text) } }],
    maxTokens: 50,
  }),
);

/** `onCall` hears each handler run, for a process whose counts the test cannot read directly. */
export function scenarioMcpServer(onCall?: (name: string) => void): ScenarioServer {
  const calls = new Tally();
  const count = (key: string) => {
    calls.add(key);
    onCall?.(key);
  };
  const mcp = new McpServer(
    { name: "roundtrip-bridge", version: "0.1.0" },
    { logger: silentLogger, tasks: new Tasks({ logger: silentLogger }) },
  );

  mcp.tool(ADD, { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => {
    count(ADD);
    return addText(a, b);
  });
  mcp.tool(TOOL, { input: z.object({ rounds: z.number().int() }) }, ({ rounds }, ctx) => {
    count(TOOL);
    const step = askStep(rounds, ctx);
    return "pending" in step ? step.pending : step.done;
  });
  mcp.tool(
    REGISTER,
    { input: z.object({ user: z.string() }), resolve: { name, confirm } },
    (_args, { name, confirm }) => {
      count(REGISTER);
      return registerText(name.name, confirm.action === "accept" && confirm.content.confirm);
    },
  );
  mcp.tool(
    REGISTER_TASK,
    { input: z.object({ user: z.string() }), resolve: { name, confirm }, task: "required" },
    (_args, { name, confirm }) => {
      count(REGISTER_TASK);
      return registerText(name.name, confirm.action === "accept" && confirm.content.confirm);
    },
  );
  mcp.tool(SUMMARIZE, { input: z.object({ text: z.string() }), resolve: { summary } }, (_args, values) => {
    count(SUMMARIZE);
    return summaryText(firstMessageText([values.summary]));
  });
  mcp.tool(WORKSPACE, {}, (_args, ctx) => {
    count(WORKSPACE);
    const answer = inputResponse(ctx.inputResponses, "roots");
    if (answer.kind !== "roots") return inputRequired({ inputRequests: { roots: listRoots() } });
    return rootsText(answer.roots);
  });
  mcp.tool(APPROVE, {}, (_args, ctx) => {
    count(APPROVE);
    const answer = inputResponse(ctx.inputResponses, "approval");
    if (answer.kind === "accepted") return approvalText("accept");
    if (answer.kind === "declined") return approvalText("decline");
    if (answer.kind === "cancelled") return approvalText("cancel");
    return inputRequired({ inputRequests: { approval: elicitUrl(APPROVAL_MESSAGE, APPROVAL_URL) } });
  });
  mcp.prompt(PROMPT, { input: z.object({ rounds: z.string() }) }, ({ rounds }, ctx) => {
    count(PROMPT);
    const step = askStep(Number(rounds), ctx);
    return "pending" in step ? step.pending : step.done;
  });
  mcp.resource("ask", { uri: TEMPLATE, mimeType: "text/plain" }, ({ rounds }, ctx) => {
    count(TEMPLATE);
    const step = askStep(Number(rounds), ctx);
    return "pending" in step ? step.pending : step.done;
  });
  return { mcp, calls };
}

export interface ScenarioHttpServer extends ScenarioServer, Listening {}

/** The scenario server on createNodeHandler and node:http, port 0. */
export async function startScenarioHttpServer(): Promise<ScenarioHttpServer> {
  const scenario = scenarioMcpServer();
  const handle = createNodeHandler(scenario.mcp);
  const listening = await listen((req, res) => handle(req, res));
  return {
    ...scenario,
    ...listening,
    close: async () => {
      scenario.mcp.close();
      await listening.close();
    },
  };
}
