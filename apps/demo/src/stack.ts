// The servers of the demo, in this process: the development authorization server and the reference
// server trusting it, both on loopback, with a trace of every round the reference server answers.
import { createServer } from "node:net";
import { startLocalAuthServer } from "@roundtrip/local-auth";
import {
  type CallToolResult,
  type CarrierMethod,
  carrierTarget,
  type GetPromptResult,
  type InputRequests,
  isCarrierMethod,
  isInputRequiredResult,
  type ReadResourceResult,
  type ResultObject,
} from "@roundtrip/sdk";
import { buildServer, loadConfig, packageVersion } from "@roundtrip/server";

/** One thing a round asked for, under its input request key. */
export interface Ask {
  key: string;
  kind: string;
  /** A short phrase for the trace line. */
  text: string;
  /** The page to visit, for a URL elicitation. */
  url?: string;
}

/** One round of a multi round-trip request, as the reference server saw and answered it. */
export interface Round {
  /** 1 for the request that starts a flow, then one more for each retry. */
  round: number;
  method: CarrierMethod;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** The input request keys the request answered. */
  answered: string[];
  withState: boolean;
  inputRequired: boolean;
  asks: Ask[];
  /** An InputRequiredResult with nothing to answer: only requestState, so the client retries. */
  stateOnly: boolean;
  isError: boolean;
  /** The text of the final result; undefined while the server still asks. */
  resultText: string | undefined;
}

export interface Stack {
  /** The reference server's MCP endpoint, which is also its PUBLIC_URL. */
  url: string;
  origin: string;
  /** The development authorization server. */
  issuer: string;
  close(): Promise<void>;
}

// The server's PUBLIC_URL must be the URL the CLI calls (the protected resource metadata speaks for
// exactly that URL), so the port is chosen before the server starts.
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port to probe with");
  return address.port;
}

/** What a round asked for, one short phrase per input request key. */
function describeRequests(inputRequests: InputRequests | undefined): Ask[] {
  return Object.entries(inputRequests ?? {}).map(([key, request]): Ask => {
    switch (request.method) {
      case "elicitation/create": {
        const { params } = request;
        return params.mode === "url"
          ? { key, kind: "URL", text: `${key} (URL ${params.url})`, url: params.url }
          : { key, kind: "form", text: `${key} (form: "${params.message}")` };
      }
      case "sampling/createMessage":
        return { key, kind: "sampling", text: `${key} (sampling)` };
      case "roots/list":
        return { key, kind: "roots", text: `${key} (roots)` };
      default: {
        // The server's own results are not validated on their way out: say what it sent.
        const method = String((request as { method?: unknown }).method);
        return { key, kind: method, text: `${key} (${method})` };
      }
    }
  });
}

/** The text a person reads in a final result: tool content, prompt messages or resource contents. */
function textOf(result: ResultObject): string {
  const { content } = result as Partial<CallToolResult>;
  const { messages } = result as Partial<GetPromptResult>;
  const { contents } = result as Partial<ReadResourceResult>;
  const blocks: readonly unknown[] = [
    ...(content ?? []),
    ...(messages ?? []).map((message) => message.content),
    ...(contents ?? []),
  ];
  return blocks
    .map((block) => {
      const text = (block as { text?: unknown } | undefined)?.text;
      return typeof text === "string" ? text : "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** The keys of an object, or none when the value is no object. */
function keysOf(value: unknown): string[] {
  return typeof value === "object" && value !== null ? Object.keys(value) : [];
}

/**
 * oidc-provider announces on start that it runs on an in-memory store with development sign-in pages;
 * the demo says that itself, so only those two notices are dropped, and only while it starts.
 */
async function quietly<T>(start: () => Promise<T>): Promise<T> {
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    if (
      /oidc-provider WARNING: a quick start development-only (in-memory adapter|feature devInteractions)/.test(
        text,
      )
    )
      return;
    original(...args);
  };
  try {
    return await start();
  } finally {
    console.warn = original;
  }
}

/**
 * Starts both servers. `onRound` is called once per round with what the client sent and what the
 * server answered, before the answer leaves, so the line shows up before the CLI reacts to it.
 */
export async function startStack({ onRound }: { onRound: (round: Round) => void }): Promise<Stack> {
  const version = await packageVersion();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const authorization = await quietly(() => startLocalAuthServer({ resource: url }));
  let server: Awaited<ReturnType<typeof buildServer>>;
  try {
    server = await buildServer(
      loadConfig(
        {
          HOST: "127.0.0.1",
          PORT: String(port),
          PUBLIC_URL: url,
          OAUTH_ISSUER: authorization.issuer,
          // No key source: an ephemeral request-state key, which is enough while this process lives.
          LOG_LEVEL: "silent",
        },
        version,
      ),
      { logStream: { write: () => true } },
    );
  } catch (error) {
    await authorization.close();
    throw error;
  }

  let round = 0;
  server.mcp.use(async (request, next) => {
    const { method } = request;
    if (!isCarrierMethod(method)) return next();
    const params = request.params ?? {};
    const answered = keysOf(params.inputResponses);
    // A request with neither answers nor state starts a flow; anything else continues one.
    if (answered.length === 0 && params.requestState === undefined) round = 0;
    round += 1;
    const result = await next();
    const inputRequired = isInputRequiredResult(result);
    const inputRequests = inputRequired ? result.inputRequests : undefined;
    onRound({
      round,
      method,
      target: carrierTarget(method, params) ?? "(no target)",
      answered,
      withState: params.requestState !== undefined,
      inputRequired,
      asks: describeRequests(inputRequests),
      stateOnly: inputRequired && keysOf(inputRequests).length === 0,
      isError: result.isError === true,
      resultText: inputRequired ? undefined : textOf(result),
    });
    return result;
  });

  const origin = await server.listen();
  await server.keyring.ready;
  return {
    url,
    origin,
    issuer: authorization.issuer,
    async close() {
      await server.close().catch(() => {});
      await authorization.close().catch(() => {});
    },
  };
}
