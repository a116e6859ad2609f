import { RequestStateSecurity } from "@roundtrip/sealing";
import { afterEach } from "vitest";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../../protocol/input-required.js";
import { type Logger, silentLogger } from "../../../protocol/logger.js";
import { errorOf, post, resultOf, startHttpServer, type WireReply } from "../../../test-support/http.js";
import { rpcRequest } from "../../../test-support/messages.js";
import type { OnceStore } from "../../fleet/once-store.js";
import { McpServer } from "../../index.js";
import { toElicitationSchema } from "../elicitation-schema.js";
import { acceptedContent } from "../input-responses.js";
import type { OnceOptions } from "../once-rounds.js";

const Confirm = z.object({ confirm: z.boolean() });

/** One sealing key for the whole fleet of a test: instances accept each other's state. */
export const FLEET_KEYS = ["once-fleet-key-".padEnd(32, "x")];

export const FROZEN_ERROR = {
  code: -32602,
  message: "Invalid or expired requestState",
  data: { reason: "invalid_request_state" },
};

export interface OnceServerOptions extends Omit<OnceOptions, "store"> {
  store: OnceStore;
  now?: () => number;
  logger?: Logger;
  /** Awaited inside the deploy handler, after it counted the run: lets a test hold copies together. */
  gate?: () => Promise<void>;
}

/** What a test watches: how often each handler ran, and how many deploy calls reached the server. */
export interface OnceCounters {
  deploys: number;
  echoes: number;
  prompts: number;
  reads: number;
  arrivals: number;
}

export interface OnceServer {
  url: string;
  mcp: McpServer;
  counters: OnceCounters;
  close(): Promise<void>;
}

/**
 * An instance of the "deployer" service: `deploy` (once) asks to confirm, then deploys; `echo` is an
 * ordinary tool; `approve` (a once prompt) and `tickets://{id}` (a once template) ask the same way.
 */
export async function startOnceServer(options: OnceServerOptions): Promise<OnceServer> {
  const { store, now, logger, gate, ...once } = options;
  const mcp = new McpServer(
    { name: "deployer", version: "1.0.0" },
    {
      logger: logger ?? silentLogger,
      requestStateSecurity: new RequestStateSecurity({ keys: FLEET_KEYS }),
      once: { store, ...once },
      ...(now ? { now } : {}),
    },
  );
  const counters: OnceCounters = { deploys: 0, echoes: 0, prompts: 0, reads: 0, arrivals: 0 };
  const ask = () =>
    inputRequired({
      inputRequests: { confirm: elicitForm("Really?", toElicitationSchema(Confirm)) },
      requestState: "asked",
    });
  mcp.use(async (request, next) => {
    if (request.method === "tools/call" && request.params.name === "deploy") counters.arrivals += 1;
    return next();
  });
  mcp.tool("deploy", { input: z.object({ service: z.string() }), once: true }, async ({ service }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
    // Asked again until confirmed: a flow can keep asking.
    if (ctx.requestState !== "asked" || !answer?.confirm) return ask();
    counters.deploys += 1;
    const run = counters.deploys;
    await gate?.();
    return `deployed ${service} (run ${run})`;
  });
  mcp.tool("echo", { input: z.object({ text: z.string() }) }, ({ text }) => {
    counters.echoes += 1;
    return text;
  });
  mcp.prompt("approve", { once: true }, (_args, ctx) => {
    if (!acceptedContent(ctx.inputResponses, "confirm", Confirm)) return ask();
    counters.prompts += 1;
    return `approved (run ${counters.prompts})`;
  });
  mcp.resource("ticket", { uri: "tickets://{id}", once: true }, ({ id }, ctx) => {
    if (!acceptedContent(ctx.inputResponses, "confirm", Confirm)) return ask();
    counters.reads += 1;
    return `ticket ${id} (read ${counters.reads})`;
  });
  const running = await startHttpServer(mcp.server);
  return { url: running.url, mcp, counters, close: running.close };
}

export const CONFIRMED = { confirm: { action: "accept", content: { confirm: true } } };

const CAPABILITIES = { elicitation: { form: {} } };

/** One carrier request over HTTP. */
export function send(url: string, method: string, params: Record<string, unknown>): Promise<WireReply> {
  return post(url, rpcRequest(method, params, { capabilities: CAPABILITIES }));
}

export function deploy(url: string, retry: Record<string, unknown> = {}): Promise<WireReply> {
  return send(url, "tools/call", { name: "deploy", arguments: { service: "web" }, ...retry });
}

/** Round one of deploy: the sealed state to echo with the confirmation. */
export async function firstRound(url: string, method = "tools/call", target?: Record<string, unknown>) {
  const params = target ?? { name: "deploy", arguments: { service: "web" } };
  const result = resultOf(await send(url, method, params));
  if (result.resultType !== "input_required" || typeof result.requestState !== "string") {
    throw new Error(`expected an InputRequiredResult, got ${JSON.stringify(result)}`);
  }
  return { ...params, requestState: result.requestState, inputResponses: CONFIRMED };
}

export function textOf(result: Record<string, unknown>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("");
}

export { errorOf, resultOf };

/**
 * Polls `check` until it holds, at most `timeoutMs`: for waiting on things without fixed sleeps. The
 * default is generous, as a busy machine needs, and still ends before the test's own 60 s timeout.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
}

/** Starts once-servers for one test file and closes those a test started after it. */
export function serversClosedAfterEach(): (options: OnceServerOptions) => Promise<OnceServer> {
  const running: OnceServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  return async (options) => {
    const server = await startOnceServer(options);
    running.push(server);
    return server;
  };
}
