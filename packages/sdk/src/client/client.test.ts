import { describe, expect, it } from "vitest";
import { McpError } from "../protocol/errors.js";
import { isInputRequiredResult } from "../protocol/input-required.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.js";
import { Server } from "../server/index.js";
import { assertClientRequest } from "../test-support/wire-schema.js";
import type { ElicitParams } from "./callbacks.js";
import { Client } from "./client.js";
import {
  InputCallbackError,
  InputRequestUnsupportedError,
  InputRequiredNotAllowedError,
  InputRequiredRoundsExceededError,
  ProtocolViolationError,
  ToolRejectedError,
} from "./errors.js";
import { FakeClock, RecordingTransport } from "./test-support/recording.js";
import { AWKWARD_STATE, roundsServer } from "./test-support/rounds-server.js";
import { MemoryClientTransport } from "./transport/memory-client.js";

const answerName = (name: string) => async (params: ElicitParams) =>
  params.mode === "url" ? { action: "accept" as const } : { action: "accept" as const, content: { name } };

function connected(options: ConstructorParameters<typeof Client>[1] = {}) {
  const fixture = roundsServer();
  const transport = new RecordingTransport(new MemoryClientTransport(fixture.server));
  const client = new Client(transport, { clock: new FakeClock(), ...options });
  return { ...fixture, transport, client };
}

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("Client over an in-memory Server", () => {
  it("discovers the server: version, capabilities, info and instructions", async () => {
    const { client, transport } = connected();
    const discovered = await client.connect();
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(discovered.supportedVersions).toContain("2026-07-28");
    expect(client.serverCapabilities?.tools).toBeDefined();
    expect(client.serverInfo).toEqual({ name: "rounds", version: "1.0.0" });
    expect(client.instructions).toBe("Answer my questions.");
    expect(transport.of("server/discover")).toHaveLength(1);
  });

  it("puts the full envelope on every request, valid against the official schema", async () => {
    const { client, transport } = connected({
      onElicit: answerName("Ada"),
      info: { name: "t", version: "1" },
    });
    await client.listTools();
    await client.callTool("greet");
    expect(transport.requests.length).toBeGreaterThanOrEqual(4);
    for (const request of transport.requests) {
      assertClientRequest(request);
      expect(request.params?._meta).toMatchObject({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } },
        "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
      });
    }
  });

  it("runs a two-round tool: new id, same name and arguments, answers under the key, exact state", async () => {
    const { client, transport } = connected({ onElicit: answerName("Ada") });
    const result = await client.callTool("greet", { polite: true });
    expect(textOf(result)).toBe("Hello, Ada!");
    const [first, retry] = transport.of("tools/call") as [JsonRpcRequest, JsonRpcRequest];
    expect(retry.id).not.toBe(first.id);
    expect(retry.params).toMatchObject({ name: "greet", arguments: { polite: true } });
    expect(retry.params?.inputResponses).toEqual({
      user_name: { action: "accept", content: { name: "Ada" } },
    });
    expect(retry.params?.requestState).toBe(AWKWARD_STATE);
    expect(first.params).not.toHaveProperty("requestState");
    expect(first.params).not.toHaveProperty("inputResponses");
  });

  it("runs a three-round tool through elicitation, sampling and roots, each to its callback", async () => {
    const seen: string[] = [];
    const { client, transport } = connected({
      onElicit: async (params, context) => {
        seen.push(`${context.key}@${context.round} from ${context.server?.name}`);
        return answerName("Ada")(params);
      },
      onSample: async (params, context) => {
        seen.push(`${context.key}@${context.round}`);
        const first = params.messages[0]?.content as { text: string };
        return { role: "assistant", content: { type: "text", text: `hi (${first.text})` }, model: "m" };
      },
      onListRoots: async (context) => {
        seen.push(`${context.key}@${context.round} for ${context.target}`);
        return { roots: [{ uri: "file:///work" }] };
      },
    });
    const result = await client.callTool("three_rounds");
    expect(textOf(result)).toBe("Ada:hi (Greet Ada) with file:///work");
    expect(seen).toEqual(["step1@1 from rounds", "step2@2", "step3@3 for three_rounds"]);
    const ids = transport.of("tools/call").map((request) => request.id);
    expect(new Set(ids).size).toBe(4);
  });

  it("loops the same way for prompts and resource templates", async () => {
    const { client, calls } = connected({ onElicit: answerName("Bo") });
    const prompt = await client.getPrompt("letter", { tone: "warm" });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Write to Bo" });
    const resource = await client.readResource("memo://7");
    expect(resource.contents[0]).toMatchObject({ uri: "memo://7", text: "memo://7 for Bo" });
    expect(calls.get("prompt:letter")).toBe(2);
    expect(calls.get("resource:memo://7")).toBe(2);
  });

  it("answers URL-mode elicitation through the same callback", async () => {
    const { client } = connected({ onElicit: answerName("x") });
    expect(textOf(await client.callTool("visit"))).toBe("visit accept");
  });

  it("declares only the capabilities of registered callbacks, and the modes chosen", async () => {
    const { client, transport } = connected();
    client.onElicit(answerName("Ada"), { modes: ["form"] }).onSample(
      async () => ({
        role: "assistant",
        content: { type: "text", text: "" },
        model: "m",
      }),
      { tools: true },
    );
    await client.callTool("greet");
    const meta = transport.of("tools/call")[0]?.params?._meta as Record<string, unknown>;
    expect(meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({
      elicitation: { form: {} },
      sampling: { tools: {} },
    });
  });

  it("fails clearly when the server asks for a callback the client lacks", async () => {
    const server = new Server({ name: "s", version: "1" });
    server.onCallTool(() => ({
      resultType: "input_required",
      inputRequests: { where: { method: "roots/list" } },
    }));
    // The server checks declared capabilities; this client declares roots without handling them.
    const client = new Client(server, { capabilities: { roots: {} } });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequestUnsupportedError);
    expect((error as Error).message).toMatch(/no onListRoots callback.*client\.onListRoots/);
  });

  it("refuses a URL elicitation when only form mode was chosen", async () => {
    const { client } = connected({ onElicit: answerName("x"), elicitationModes: ["form"], capabilities: {} });
    // The server gates on declared capabilities first: without elicitation.url it answers -32021.
    await expect(client.callTool("visit")).rejects.toMatchObject({ code: -32021 });
  });

  it("fails the call with the callback's error and does not retry", async () => {
    const { client, calls } = connected({
      onElicit: async () => {
        throw new Error("dialog closed");
      },
    });
    const error = await client.callTool("greet").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputCallbackError);
    expect((error as Error).message).toContain("dialog closed");
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(calls.get("greet")).toBe(1);
  });

  it("rejects a callback answer that is not the result its request asks for", async () => {
    const { client } = connected({
      onElicit: async () => ({ action: "maybe" }) as never,
    });
    await expect(client.callTool("greet")).rejects.toThrow(/onElicit.*invalid result.*action/);
  });

  it("gives up after inputRequiredMaxRounds retries", async () => {
    const { client, calls } = connected({ onElicit: answerName("x"), inputRequiredMaxRounds: 2 });
    await expect(client.callTool("endless")).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(calls.get("endless")).toBe(3);
  });

  it("retries state-only rounds after the backoff", async () => {
    const clock = new FakeClock();
    const { client } = connected({ clock });
    expect(textOf(await client.callTool("state_only", { legs: 3 }))).toBe("done after 3 state-only legs");
    expect(clock.sleeps).toEqual([50, 100, 200]);
  });

  it("answers two questions of one round concurrently and sends both answers", async () => {
    const { client } = connected({ onElicit: answerName("Ada") });
    expect(textOf(await client.callTool("two_questions"))).toBe("Ada and Ada");
  });

  it("resumes from a saved requestState in a new Client", async () => {
    const { server } = roundsServer();
    // Driving by hand, the caller declares what it will answer.
    const manual = { capabilities: { elicitation: { form: {} } } };
    const first = new Client(server, manual);
    const round = await first.manualRounds.callTool("greet", {}, { allowInputRequired: true });
    if (!isInputRequiredResult(round)) throw new Error("expected a round");
    const saved = JSON.parse(JSON.stringify({ state: round.requestState })) as { state: string };

    const fresh = new Client(server, manual);
    const result = await fresh.callTool(
      "greet",
      {},
      {
        requestState: saved.state,
        inputResponses: { user_name: { action: "accept", content: { name: "Cy" } } },
      },
    );
    expect(textOf(result)).toBe("Hello, Cy!");
  });

  it("hands rounds to the caller with client.manualRounds, and refuses them unless allowed", async () => {
    const { client, transport } = connected({ capabilities: { elicitation: { form: {} } } });
    const refused = await client.manualRounds.callTool("greet").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InputRequiredNotAllowedError);
    expect((refused as Error).message).toContain("allowInputRequired: true");

    const round = await client.manualRounds.callTool("greet", undefined, { allowInputRequired: true });
    expect(isInputRequiredResult(round)).toBe(true);
    if (!isInputRequiredResult(round)) return;
    expect(Object.keys(round.inputRequests ?? {})).toEqual(["user_name"]);
    const done = await client.manualRounds.callTool("greet", undefined, {
      allowInputRequired: true,
      inputResponses: { user_name: { action: "accept", content: { name: "Di" } } },
      requestState: round.requestState,
    });
    expect(isInputRequiredResult(done)).toBe(false);
    if (!isInputRequiredResult(done)) expect(textOf(done)).toBe("Hello, Di!");
    expect(transport.of("tools/call").at(-1)?.params?.requestState).toBe(AWKWARD_STATE);

    const prompt = await client.manualRounds.getPrompt("p", {}, { allowInputRequired: true });
    const resource = await client.manualRounds.readResource("memo://1", { allowInputRequired: true });
    expect([isInputRequiredResult(prompt), isInputRequiredResult(resource)]).toEqual([true, true]);
  });

  it("lists tools and drops those whose x-mcp-header annotations are invalid, with a warning", async () => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (fields: Record<string, unknown>) => warnings.push(String(fields.tool)),
    };
    const { client } = connected({ logger });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain("bad_headers");
    expect(tools.map((tool) => tool.name)).toContain("forecast");
    expect(warnings).toEqual(["bad_headers"]);
    await expect(client.callTool("bad_headers")).rejects.toThrow(ToolRejectedError);
  });

  it("surfaces JSON-RPC errors as McpError", async () => {
    const { client } = connected();
    const error = await client.callTool("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });

  it("aborts the whole call, rounds included, with a signal or a timeout", async () => {
    const controller = new AbortController();
    const { client } = connected({
      onElicit: () => {
        controller.abort(new Error("stop"));
        return new Promise(() => {});
      },
    });
    await expect(client.callTool("greet", {}, { signal: controller.signal })).rejects.toThrow("stop");
    const slow = connected({ onElicit: () => new Promise(() => {}) });
    await expect(slow.client.callTool("greet", {}, { timeoutMs: 20 })).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });
});

describe("Client result handling", () => {
  /** A transport that answers each method from a table, to send what no real server would. */
  function answering(results: Record<string, Record<string, unknown>>) {
    const server = roundsServer().server;
    const memory = new MemoryClientTransport(server);
    return new Client({
      kind: "memory",
      async request(request): Promise<JsonRpcResponse> {
        const result = results[request.method];
        return result ? { jsonrpc: "2.0", id: request.id, result } : memory.request(request);
      },
      async close() {},
    });
  }

  it("treats a missing resultType as complete and does not retry", async () => {
    const client = answering({ "tools/call": { content: [{ type: "text", text: "old" }] } });
    const result = await client.callTool("any");
    expect(result.resultType).toBe("complete");
    expect(textOf(result)).toBe("old");
  });

  it("rejects an unknown resultType", async () => {
    const client = answering({ "tools/call": { resultType: "task", task: {} } });
    await expect(client.callTool("any")).rejects.toThrow(ProtocolViolationError);
  });

  it("rejects input_required on a method that may not carry it", async () => {
    const client = answering({ "tools/list": { resultType: "input_required", requestState: "x" } });
    await expect(client.listTools()).rejects.toThrow(/only allowed on tools\/call/);
  });

  it("rejects an InputRequiredResult that asks for nothing", async () => {
    const client = answering({ "tools/call": { resultType: "input_required" } });
    await expect(client.callTool("any")).rejects.toThrow(/inputRequests, requestState or both/);
  });

  it("reads a list without ttlMs or cacheScope as uncached", async () => {
    const client = answering({ "tools/list": { tools: [] } });
    await expect(client.listTools()).resolves.toMatchObject({ ttlMs: 0, cacheScope: "private", tools: [] });
  });
});
