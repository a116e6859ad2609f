import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError as V1McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import {
  createMessage,
  elicitForm,
  elicitUrl,
  inputRequired,
  listRoots,
} from "../../protocol/input-required.js";
import { LATEST_LEGACY_PROTOCOL_VERSION } from "../../protocol/versions.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { recordingLogger } from "../../test-support/in-process.js";
import { McpServer } from "../index.js";
import { toElicitationSchema } from "../mcp-server/elicitation-schema.js";
import { acceptedContent } from "../mcp-server/input-responses.js";
import type { McpServerOptions } from "../mcp-server/mcp-server.js";
import { ask, resolver } from "../mcp-server/resolvers/resolvers.js";
import { initializeMessage, RawStream, rawPost, rawSession } from "./test-support/raw-session.js";
import { connectV1 } from "./test-support/v1-peer.js";

const Name = z.object({ name: z.string() });
const Colour = z.object({ colour: z.string() });
const askName = () => elicitForm("What is your name?", toElicitationSchema(Name));

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

/** Tools, a prompt and a resource template that ask, each the way a 2026-07-28 client would be asked. */
function askingServer(options: McpServerOptions = {}) {
  const logger = recordingLogger();
  const calls = { greet: 0, hesitant: 0, cancelled: 0 };
  const mcp = new McpServer({ name: "asking", version: "1.0.0" }, { logger, ...options });
  mcp.tool("greet", {}, (_args, ctx) => {
    calls.greet++;
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return inputRequired({ inputRequests: { name: askName() }, requestState: "asked-name" });
    return `Hello, ${answer.name}! (state: ${ctx.requestState})`;
  });
  mcp.tool("capital", {}, (_args, ctx) => {
    const reply = ctx.inputResponses?.capital as { content?: { text?: string } } | undefined;
    if (reply?.content?.text) return `The model says ${reply.content.text}`;
    return inputRequired({
      inputRequests: {
        capital: createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
          maxTokens: 10,
        }),
      },
    });
  });
  mcp.tool("roots", {}, (_args, ctx) => {
    const reply = ctx.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
    if (reply?.roots) return `Roots: ${reply.roots.map((root) => root.uri).join(", ")}`;
    return inputRequired({ inputRequests: { roots: listRoots() } });
  });
  mcp.tool("profile", {}, (_args, ctx) => {
    const state =
      ctx.requestState === undefined ? undefined : (JSON.parse(ctx.requestState) as { name: string });
    if (state) {
      const colour = acceptedContent(ctx.inputResponses, "colour", Colour);
      if (colour) return `${state.name} likes ${colour.colour}`;
    }
    const name = acceptedContent(ctx.inputResponses, "name", Name);
    if (name) {
      return inputRequired({
        inputRequests: { colour: elicitForm("Favourite colour?", toElicitationSchema(Colour)) },
        requestState: JSON.stringify({ name: name.name }),
      });
    }
    return inputRequired({ inputRequests: { name: askName() } });
  });
  mcp.tool("patient", {}, (_args, ctx) =>
    ctx.requestState === "waited" ? "worth the wait" : inputRequired({ requestState: "waited" }),
  );
  mcp.tool("insatiable", {}, () => inputRequired({ inputRequests: { name: askName() } }));
  mcp.tool("hesitant", {}, async (_args, ctx) => {
    calls.hesitant++;
    if (ctx.inputResponses) return "answered";
    ctx.signal.addEventListener("abort", () => calls.cancelled++);
    return inputRequired({ inputRequests: { name: askName() } });
  });
  const who = resolver(() => ask.elicit("Who is asking?", Name));
  mcp.tool("resolved", { resolve: { who } }, (_args, { who }) => `Resolved ${who.name}`);
  mcp.prompt("letter", { input: z.object({ tone: z.string() }) }, ({ tone }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return inputRequired({ inputRequests: { name: askName() } });
    return `Write a ${tone} letter to ${answer.name}`;
  });
  mcp.resource("card", { uri: "cards://{kind}", mimeType: "text/plain" }, ({ kind }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return inputRequired({ inputRequests: { name: askName() } });
    return `${kind} card for ${answer.name}`;
  });
  return { mcp, logger, calls };
}

async function serve(mcp: McpServer): Promise<RunningHttpServer> {
  const http = await startHttpServer(mcp.server);
  running.push(http);
  return http;
}

const FULL = { elicitation: {}, sampling: {}, roots: {} };
const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text;

describe("the input-required bridge for 2025-era sessions", () => {
  it("asks elicitation, sampling and roots as real client requests and completes each call", async () => {
    const http = await serve(askingServer().mcp);
    const peer = await connectV1(http.url, FULL);
    const asked: unknown[] = [];
    peer.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada" } };
    });
    peer.client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "Paris" },
      model: "test-model",
    }));
    peer.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work" }] }));
    expect(await peer.client.callTool({ name: "greet", arguments: {} })).toEqual({
      content: [{ type: "text", text: "Hello, Ada! (state: asked-name)" }],
    });
    expect(asked).toEqual([askName().params]);
    expect(text(await peer.client.callTool({ name: "capital", arguments: {} }))).toBe("The model says Paris");
    expect(text(await peer.client.callTool({ name: "roots", arguments: {} }))).toBe("Roots: file:///work");
    await peer.close();
  });

  it("asks a URL elicitation with the elicitationId 2025-11-25 requires, which v1 clients check", async () => {
    const mcp = new McpServer({ name: "url", version: "1.0.0" }, { logger: recordingLogger() });
    mcp.tool("approve", {}, (_args, ctx) => {
      const reply = ctx.inputResponses?.approval as { action?: string } | undefined;
      if (reply?.action === "accept") return "approved";
      return inputRequired({ inputRequests: { approval: elicitUrl("Approve it", "https://example.com/a") } });
    });
    const http = await serve(mcp);
    const peer = await connectV1(http.url, { elicitation: { url: {} } });
    const asked: Record<string, unknown>[] = [];
    peer.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept" };
    });
    expect(text(await peer.client.callTool({ name: "approve", arguments: {} }))).toBe("approved");
    expect(asked).toEqual([
      { mode: "url", message: "Approve it", url: "https://example.com/a", elicitationId: expect.any(String) },
    ]);
    await peer.close();
  });

  it("runs round after round with the sealed requestState, and retries state-only rounds", async () => {
    const http = await serve(askingServer().mcp);
    const peer = await connectV1(http.url, FULL);
    peer.client.setRequestHandler(ElicitRequestSchema, async (request) =>
      request.params.message === "Favourite colour?"
        ? { action: "accept", content: { colour: "teal" } }
        : { action: "accept", content: { name: "Grace" } },
    );
    expect(text(await peer.client.callTool({ name: "profile", arguments: {} }))).toBe("Grace likes teal");
    expect(text(await peer.client.callTool({ name: "patient", arguments: {} }))).toBe("worth the wait");
    await peer.close();
  });

  it("serves resolver tools, prompts and resource templates that ask", async () => {
    const http = await serve(askingServer().mcp);
    const peer = await connectV1(http.url, FULL);
    peer.client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { name: "Lin" },
    }));
    expect(text(await peer.client.callTool({ name: "resolved", arguments: {} }))).toBe("Resolved Lin");
    const prompt = await peer.client.getPrompt({ name: "letter", arguments: { tone: "warm" } });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Write a warm letter to Lin" } },
    ]);
    const card = await peer.client.readResource({ uri: "cards://birthday" });
    expect(card.contents).toEqual([
      { uri: "cards://birthday", mimeType: "text/plain", text: "birthday card for Lin" },
    ]);
    expect(Object.keys(card)).not.toContain("ttlMs");
    await peer.close();
  });

  it("refuses a question the session's capabilities do not cover with -32021, naming the capability", async () => {
    const http = await serve(askingServer().mcp);
    const peer = await connectV1(http.url, { sampling: {} });
    const failure = await peer.client
      .callTool({ name: "greet", arguments: {} })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(V1McpError);
    expect((failure as V1McpError).code).toBe(-32021);
    expect((failure as V1McpError).message).toContain("elicitation");
    await peer.close();
  });

  it("stops the rounds when the client cancels the call, and cancels the question it was asked", async () => {
    const { mcp, calls } = askingServer();
    const http = await serve(mcp);
    const peer = await connectV1(http.url, FULL);
    const call = new AbortController();
    const questionCancelled = new Promise<void>((resolve) => {
      peer.client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
        extra.signal.addEventListener("abort", () => resolve());
        call.abort();
        return new Promise(() => undefined);
      });
    });
    const outcome = peer.client.callTool({ name: "hesitant", arguments: {} }, undefined, {
      signal: call.signal,
    });
    await expect(outcome).rejects.toThrow();
    await questionCancelled;
    // The handler's own signal saw the cancellation, and no second round ran.
    await expect.poll(() => calls.cancelled).toBe(1);
    expect(calls.hesitant).toBe(1);
    await peer.close();
  });

  it("stops a handler that keeps asking after the round bound", async () => {
    const http = await serve(askingServer({ legacy: { bridge: { maxRounds: 3 } } }).mcp);
    const peer = await connectV1(http.url, FULL);
    let asked = 0;
    peer.client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: "accept", content: { name: "again" } };
    });
    const failure = await peer.client
      .callTool({ name: "insatiable", arguments: {} })
      .catch((error: unknown) => error);
    expect((failure as V1McpError).message).toContain("still needed input after 3 rounds");
    expect(asked).toBe(2);
    await peer.close();
  });

  it("stops a call whose question outlasts bridge.timeoutMs with -32603 naming the bound, and cancels the question", async () => {
    // The bound is far from what asking takes on a busy machine: a bound that ran out first would
    // leave no question to cancel. The client's hesitation is made up on a fake clock, jumped past the
    // bound once the question arrived; the jump stays under the v1 client's own 60 s request timeout.
    const timeoutMs = 10_000;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldAdvanceTime: true });
    try {
      const { mcp, calls } = askingServer({ legacy: { bridge: { timeoutMs } } });
      const http = await serve(mcp);
      const peer = await connectV1(http.url, FULL);
      const questionCancelled = new Promise<unknown>((resolve) => {
        peer.client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
          extra.signal.addEventListener("abort", () => resolve(extra.signal.reason));
          void vi.advanceTimersByTimeAsync(timeoutMs + 1);
          return new Promise(() => undefined);
        });
      });
      const failure = await peer.client
        .callTool({ name: "hesitant", arguments: {} })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(V1McpError);
      expect((failure as V1McpError).code).toBe(-32603);
      expect((failure as V1McpError).message).toContain("took longer than 10 s");
      // The v1 client aborts a request handler's signal only on notifications/cancelled for it.
      expect(await questionCancelled).toBe("The request took longer than the server allows");
      expect(calls.hesitant).toBe(1);
      await peer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("serves a call made before notifications/initialized, but asks the client nothing until it arrives", async () => {
    const { mcp, calls } = askingServer();
    const http = await serve(mcp);
    const opened = await rawPost(http.url, initializeMessage(undefined, { elicitation: {} }));
    const headers = {
      "mcp-session-id": opened.headers.get("mcp-session-id") as string,
      "mcp-protocol-version": LATEST_LEGACY_PROTOCOL_VERSION,
    };
    const greet = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "greet", arguments: {} },
    });
    const early = await rawPost(http.url, greet(2), headers);
    expect(early.messages).toEqual([
      {
        jsonrpc: "2.0",
        id: 2,
        result: {
          content: [{ type: "text", text: expect.stringContaining("notifications/initialized") }],
          isError: true,
        },
      },
    ]);
    expect(calls.greet).toBe(1);
    await rawPost(http.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    const stream = await RawStream.post(http.url, greet(3), headers);
    expect((await stream.next())?.message).toMatchObject({ method: "elicitation/create" });
    stream.close();
  });

  it("refuses an answer of the wrong shape with -32602 to the original call", async () => {
    const http = await serve(askingServer().mcp);
    const session = await rawSession(http.url, undefined, { elicitation: {} });
    const stream = await RawStream.post(
      http.url,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "greet", arguments: {} } },
      session.headers,
    );
    const question = (await stream.next())?.message as { id: string; method: string };
    expect(question.method).toBe("elicitation/create");
    const answered = await rawPost(
      http.url,
      { jsonrpc: "2.0", id: question.id, result: { action: "maybe" } },
      session.headers,
    );
    expect(answered.status).toBe(202);
    const final = (await stream.next())?.message;
    expect(final).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(JSON.stringify(final)).toContain("elicitation/create");
  });

  it("keeps a call's stream resumable: after a dropped POST stream, Last-Event-ID brings the answer", async () => {
    const http = await serve(askingServer().mcp);
    const session = await rawSession(http.url, undefined, { elicitation: {} });
    const stream = await RawStream.post(
      http.url,
      { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "greet", arguments: {} } },
      session.headers,
    );
    const event = await stream.next();
    const question = event?.message as { id: string };
    stream.close();
    const answered = await rawPost(
      http.url,
      { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name: "Ada" } } },
      session.headers,
    );
    expect(answered.status).toBe(202);
    const resumed = await RawStream.get(http.url, {
      ...session.headers,
      "last-event-id": event?.id as string,
    });
    expect((await resumed.next())?.message).toEqual({
      jsonrpc: "2.0",
      id: 11,
      result: { content: [{ type: "text", text: "Hello, Ada! (state: asked-name)" }] },
    });
    expect(await resumed.next()).toBeUndefined();
  });

  it("ignores and logs, without its content, a response to no request the server sent", async () => {
    const { mcp, logger } = askingServer();
    const http = await serve(mcp);
    const session = await rawSession(http.url);
    const reply = await rawPost(
      http.url,
      { jsonrpc: "2.0", id: "s999", result: { action: "accept", content: { secret: "hunter2" } } },
      session.headers,
    );
    expect(reply.status).toBe(202);
    const warning = logger.records.find((record) => record.message.includes("ignored a response"));
    expect(warning).toBeDefined();
    expect(JSON.stringify(logger.records)).not.toContain("hunter2");
  });

  it("tells a client that takes only JSON that the tool needs an SSE stream", async () => {
    const http = await serve(askingServer().mcp);
    const session = await rawSession(http.url, undefined, { elicitation: {} });
    const reply = await rawPost(
      http.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "greet", arguments: {} } },
      { ...session.headers, accept: "application/json" },
    );
    expect(reply.status).toBe(200);
    expect(reply.messages[0]).toMatchObject({ id: 3, result: { isError: true } });
    expect(JSON.stringify(reply.messages[0])).toContain("text/event-stream");
  });
});
