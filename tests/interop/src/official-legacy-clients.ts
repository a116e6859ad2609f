import { fileURLToPath } from "node:url";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport as V1Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { sampleAnswer } from "./ask-flow.js";
import { firstMessageText, formAnswer, ROOTS } from "./bridge-scenario.js";
import { Tally } from "./tally.js";

/**
 * The official TypeScript SDK clients as a 2025-era host runs them: v1 (1.32.2) on Streamable HTTP
 * or stdio, and v2 (2.4) in its default `legacy` negotiation, which opens with `initialize`. Each
 * declares the capabilities it is given and answers the scenario's questions as bridge-scenario says.
 */

export type Capability = "elicitation" | "sampling" | "roots";
export const ALL_CAPABILITIES: readonly Capability[] = ["elicitation", "sampling", "roots"];

export interface ElicitationSeen {
  message: string;
  mode: string;
  /** URL mode: the page, and the id 2025-11-25 requires the server to give it. */
  url?: string;
  elicitationId?: string;
  /** Aborted when the server cancels its request (notifications/cancelled). */
  signal: AbortSignal;
}

export interface LegacyClientOptions {
  capabilities?: readonly Capability[];
  /** Answers an elicitation instead of formAnswer (to hold it open, or to decline). */
  onElicit?: (seen: ElicitationSeen) => Promise<Record<string, unknown>>;
}

export type CallResult = { content: unknown[]; isError?: boolean; [key: string]: unknown };

/** What the suites do with either SDK's client: the same calls, the same shapes back. */
export interface LegacyClient {
  readonly sdk: "v1" | "v2";
  /** The revision the session runs at, as the client negotiated it. */
  protocolVersion(): string | undefined;
  serverName(): string | undefined;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallResult>;
  getPrompt(name: string, args: Record<string, string>): Promise<{ messages: { content: unknown }[] }>;
  readResource(uri: string): Promise<{ contents: { uri: string; text?: string }[] }>;
  /** Every JSON-RPC response this client has finished sending (its answers to the server's requests). */
  readonly responsesSent: Tally;
  close(): Promise<void>;
}

/** Counts the responses a transport has finished sending under the name "response". */
function countResponses(transport: { send(message: object, options?: unknown): Promise<void> }): Tally {
  const sent = new Tally();
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if ("result" in message || "error" in message) sent.add("response");
  };
  return sent;
}

function capabilitiesOf(wanted: readonly Capability[]) {
  return {
    ...(wanted.includes("elicitation") ? { elicitation: { form: {}, url: {} } } : {}),
    ...(wanted.includes("sampling") ? { sampling: {} } : {}),
    ...(wanted.includes("roots") ? { roots: { listChanged: true } } : {}),
  };
}

interface ElicitParamsLike {
  message: string;
  mode?: string;
  url?: string;
  elicitationId?: string;
  requestedSchema?: { properties?: Record<string, unknown> };
}

function elicitWith(options: LegacyClientOptions) {
  return async (params: ElicitParamsLike, signal: AbortSignal) => {
    const mode = params.mode ?? "form";
    if (options.onElicit) {
      const { message, url, elicitationId } = params;
      return options.onElicit({
        message,
        mode,
        signal,
        ...(url ? { url } : {}),
        ...(elicitationId ? { elicitationId } : {}),
      });
    }
    if (mode === "url") return { action: "accept" };
    return { action: "accept", content: formAnswer(params.message, params.requestedSchema) };
  };
}

function sample(messages: readonly { content: unknown }[]) {
  return {
    role: "assistant" as const,
    content: { type: "text" as const, text: sampleAnswer(firstMessageText(messages)) },
    model: "interop-model",
  };
}

const INFO = { name: "official-legacy-client", version: "1.0.0" };

/**
 * How long the v1 client waits for each answer. Its default (60 s) is a bound on the server, not a
 * scenario of these tests: a stdio server compiles its TypeScript as it starts, which on a loaded
 * machine can take longer than that. The tests' own timeouts bound a server that never answers.
 */
const V1_PATIENCE = { timeout: 600_000 };

/** The v1 client on any of its transports; the version initialize agreed is what it hands the transport. */
async function connectV1(transport: V1Transport, options: LegacyClientOptions): Promise<LegacyClient> {
  let version: string | undefined;
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (agreed) => {
    version = agreed;
    setVersion?.(agreed);
  };
  const wanted = options.capabilities ?? ALL_CAPABILITIES;
  const client = new V1Client(INFO, { capabilities: capabilitiesOf(wanted) });
  const elicit = elicitWith(options);
  if (wanted.includes("elicitation")) {
    client.setRequestHandler(
      ElicitRequestSchema,
      (request, extra) => elicit(request.params as ElicitParamsLike, extra.signal) as never,
    );
  }
  if (wanted.includes("sampling")) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(request.params.messages));
  }
  if (wanted.includes("roots")) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS.map((root) => ({ ...root })) }));
  }
  const responsesSent = countResponses(transport);
  await client.connect(transport, V1_PATIENCE);
  return {
    sdk: "v1",
    responsesSent,
    protocolVersion: () => version,
    serverName: () => client.getServerVersion()?.name,
    listTools: () => client.listTools(undefined, V1_PATIENCE),
    callTool: (name, args, signal) =>
      client.callTool({ name, arguments: args }, undefined, {
        ...V1_PATIENCE,
        ...(signal ? { signal } : {}),
      }) as Promise<CallResult>,
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }, V1_PATIENCE),
    readResource: (uri) =>
      client.readResource({ uri }, V1_PATIENCE) as ReturnType<LegacyClient["readResource"]>,
    close: () => client.close(),
  };
}

export function connectV1Http(url: string, options: LegacyClientOptions = {}): Promise<LegacyClient> {
  return connectV1(new V1HttpTransport(new URL(url)), options);
}

export interface StdioLegacyClient extends LegacyClient {
  /** Each handler run the server process reported. */
  readonly serverCalls: Tally;
}

const STDIO_MAIN = fileURLToPath(new URL("./stdio-scenario-main.ts", import.meta.url));

/** The scenario server as a child process, launched and spoken to by the v1 client over stdio. */
export async function connectV1Stdio(options: LegacyClientOptions = {}): Promise<StdioLegacyClient> {
  const transport = new V1StdioTransport({
    command: process.execPath,
    args: typescriptArgs(STDIO_MAIN),
    stderr: "pipe",
  });
  const serverCalls = new Tally();
  let partial = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line !== "") serverCalls.add(line);
  });
  return { ...(await connectV1(transport, options)), serverCalls };
}

/** The v2 client in its default `legacy` negotiation on Streamable HTTP. */
export async function connectV2Legacy(url: string, options: LegacyClientOptions = {}): Promise<LegacyClient> {
  const wanted = options.capabilities ?? ALL_CAPABILITIES;
  const client = new V2Client(INFO, {
    versionNegotiation: { mode: "legacy" },
    capabilities: capabilitiesOf(wanted),
  });
  const elicit = elicitWith(options);
  if (wanted.includes("elicitation")) {
    client.setRequestHandler(
      "elicitation/create",
      (request, ctx) => elicit(request.params as ElicitParamsLike, ctx.mcpReq.signal) as never,
    );
  }
  if (wanted.includes("sampling")) {
    client.setRequestHandler("sampling/createMessage", async (request) => sample(request.params.messages));
  }
  if (wanted.includes("roots")) {
    client.setRequestHandler("roots/list", async () => ({ roots: ROOTS.map((root) => ({ ...root })) }));
  }
  const transport = new V2HttpTransport(new URL(url));
  const responsesSent = countResponses(transport);
  await client.connect(transport);
  return {
    sdk: "v2",
    responsesSent,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    serverName: () => client.getServerVersion()?.name,
    listTools: () => client.listTools(),
    callTool: (name, args, signal) =>
      client.callTool({ name, arguments: args }, signal ? { signal } : {}) as Promise<CallResult>,
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
    readResource: (uri) => client.readResource({ uri }) as ReturnType<LegacyClient["readResource"]>,
    close: () => client.close(),
  };
}
