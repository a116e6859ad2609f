import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { silentLogger } from "../../protocol/logger.js";
import { META } from "../../protocol/versions.js";
import { post, type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { recordingLogger } from "../../test-support/in-process.js";
import { rpcRequest } from "../../test-support/messages.js";
import type { AuthInfo } from "../auth-info.js";
import { McpServer } from "../index.js";
import { toElicitationSchema } from "../mcp-server/elicitation-schema.js";
import type { McpServerOptions } from "../mcp-server/mcp-server.js";
import type { HttpHandlerOptions } from "../transport/http-server.js";
import { InMemoryEventStore } from "./event-store.js";
import { initializeMessage, RawStream, rawPost, rawSession } from "./test-support/raw-session.js";
import { connectV1 } from "./test-support/v1-peer.js";

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

function catalogue(options: McpServerOptions = {}): McpServer {
  const mcp = new McpServer({ name: "sessions", version: "1.0.0" }, { logger: silentLogger, ...options });
  mcp.tool("hello", {}, () => "hello");
  mcp.tool("chatty", {}, async (_args, ctx) => {
    await ctx.log("debug", "too detailed");
    await ctx.log("info", "worth knowing");
    await ctx.sendProgress(1, 2);
    await ctx.sendProgress(2, 2);
    return "done";
  });
  mcp.resource("a", { uri: "test://a", mimeType: "text/plain" }, () => "A");
  mcp.resource("b", { uri: "test://b", mimeType: "text/plain" }, () => "B");
  return mcp;
}

/** `ask` asks the client for a name and waits for it. */
function withAsk(mcp: McpServer): McpServer {
  const Name = z.object({ name: z.string() });
  mcp.tool("ask", {}, (_args, ctx) =>
    ctx.inputResponses
      ? "answered"
      : inputRequired({ inputRequests: { name: elicitForm("Name?", toElicitationSchema(Name)) } }),
  );
  return mcp;
}

/** Resolves, for each POST the server receives from now on, when the server's side of it closes. */
function postCloses(http: RunningHttpServer): Promise<void>[] {
  const closes: Promise<void>[] = [];
  http.http.on("request", (req, res) => {
    if (req.method === "POST") closes.push(new Promise((resolve) => res.once("close", () => resolve())));
  });
  return closes;
}

async function serve(mcp: McpServer, options: HttpHandlerOptions = {}): Promise<RunningHttpServer> {
  const http = await startHttpServer(mcp.server, options);
  running.push(http);
  return http;
}

const call = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("2025-era sessions over Streamable HTTP", () => {
  it("serves the official v1 client: initialize, list, call, then DELETE ends the session", async () => {
    const http = await serve(catalogue());
    const peer = await connectV1(http.url);
    const sessionId = peer.transport.sessionId as string;
    expect(sessionId).toMatch(/^[\x21-\x7e]{32,}$/);
    expect(peer.client.getServerVersion()).toEqual({ name: "sessions", version: "1.0.0" });
    expect((await peer.client.listTools()).tools.map((tool) => tool.name)).toEqual(["chatty", "hello"]);
    // The 2026-07-28 result fields never reach a legacy client.
    expect(await peer.client.callTool({ name: "hello", arguments: {} })).toEqual({
      content: [{ type: "text", text: "hello" }],
    });
    await peer.close();
    const after = await rawPost(http.url, call(9, "tools/list"), {
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    });
    expect(after.status).toBe(404);
    expect(after.messages[0]).toMatchObject({ error: { code: -32600 } });
  });

  it.each([
    ["2025-11-25", "2025-11-25"],
    ["2025-06-18", "2025-06-18"],
    ["2025-03-26", "2025-03-26"],
    ["2024-11-05", "2025-11-25"],
    ["1999-01-01", "2025-11-25"],
  ])("answers initialize for %s with version %s and a fresh random session id", async (asked, chosen) => {
    const http = await serve(catalogue({ instructions: "Be brief." }));
    const first = await rawPost(http.url, initializeMessage(asked));
    const second = await rawPost(http.url, initializeMessage(asked));
    expect(first.status).toBe(200);
    const result = first.messages[0]?.result as Record<string, unknown>;
    expect(result).toMatchObject({
      protocolVersion: chosen,
      serverInfo: { name: "sessions", version: "1.0.0" },
      instructions: "Be brief.",
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    });
    expect(Object.keys(result)).not.toContain("resultType");
    expect(first.headers.get("mcp-session-id")).not.toBe(second.headers.get("mcp-session-id"));
  });

  it("refuses requests outside a live session with the era's statuses, and changes nothing", async () => {
    const http = await serve(catalogue());
    const session = await rawSession(http.url);
    const noSession = await rawPost(http.url, call(2, "tools/list"), {
      "mcp-protocol-version": "2025-11-25",
    });
    expect(noSession.status).toBe(400);
    expect(noSession.messages[0]).toMatchObject({ error: { code: -32600 } });
    expect(JSON.stringify(noSession.messages[0])).toContain("send initialize first");
    const unknown = await rawPost(http.url, call(3, "tools/list"), {
      ...session.headers,
      "mcp-session-id": "not-a-session",
    });
    expect(unknown.status).toBe(404);
    const { "mcp-protocol-version": _version, ...withoutVersion } = session.headers;
    const missing = await rawPost(http.url, call(4, "tools/list"), withoutVersion);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.messages[0])).toContain("send 2025-11-25");
    const mismatched = await rawPost(http.url, call(5, "tools/list"), {
      ...session.headers,
      "mcp-protocol-version": "2025-06-18",
    });
    expect(mismatched.status).toBe(400);
    // The session is untouched by all of that.
    const fine = await rawPost(http.url, call(6, "tools/list"), session.headers);
    expect(fine.status).toBe(200);
    expect(fine.messages[0]).toMatchObject({
      id: 6,
      result: { tools: [{ name: "chatty" }, { name: "hello" }] },
    });
  });

  it("serves a 2025-03-26 session without the MCP-Protocol-Version header, which that revision predates", async () => {
    const http = await serve(catalogue());
    const session = await rawSession(http.url, "2025-03-26");
    const reply = await rawPost(http.url, call(2, "ping"), { "mcp-session-id": session.id });
    expect(reply).toMatchObject({ status: 200, messages: [{ id: 2, result: {} }] });
  });

  it("delivers list changes and subscribed resource updates on the session's GET stream", async () => {
    const mcp = catalogue();
    const http = await serve(mcp);
    const session = await rawSession(http.url);
    const stream = await RawStream.get(http.url, session.headers);
    expect(stream.status).toBe(200);
    await rawPost(http.url, call(2, "resources/subscribe", { uri: "test://a" }), session.headers);
    mcp.server.notifyResourceUpdated("test://b");
    mcp.server.notifyResourceUpdated("test://a");
    expect((await stream.next())?.message).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "test://a" },
    });
    await rawPost(http.url, call(3, "resources/unsubscribe", { uri: "test://a" }), session.headers);
    mcp.server.notifyResourceUpdated("test://a");
    mcp.tool("late", {}, () => "late");
    expect((await stream.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    stream.close();
  });

  it("refuses a second GET stream (409) and a GET that does not take SSE (406)", async () => {
    const http = await serve(catalogue());
    const session = await rawSession(http.url);
    const stream = await RawStream.get(http.url, session.headers);
    const second = await fetch(http.url, { headers: { accept: "text/event-stream", ...session.headers } });
    expect(second.status).toBe(409);
    const json = await fetch(http.url, { headers: { accept: "application/json", ...session.headers } });
    expect(json.status).toBe(406);
    stream.close();
  });

  it("replays what a dropped GET stream missed from Last-Event-ID, and only for its own session", async () => {
    const mcp = catalogue();
    const http = await serve(mcp);
    const session = await rawSession(http.url);
    const other = await rawSession(http.url);
    const first = await RawStream.get(http.url, session.headers);
    mcp.server.notifyToolsListChanged();
    const seen = await first.next();
    expect(seen?.id).toBeTypeOf("string");
    first.close();
    // Dropped: wait until the server saw the stream go, so the next events are missed.
    await expect
      .poll(
        async () =>
          (await fetch(http.url, { headers: { accept: "text/event-stream", ...session.headers } })).status,
      )
      .not.toBe(409);
    mcp.server.notifyPromptsListChanged();
    mcp.server.notifyResourcesListChanged();
    const foreign = await fetch(http.url, {
      headers: { accept: "text/event-stream", ...other.headers, "last-event-id": seen?.id as string },
    });
    expect(foreign.status).toBe(404);
    const resumed = await RawStream.get(http.url, {
      ...session.headers,
      "last-event-id": seen?.id as string,
    });
    const replayed = [(await resumed.next())?.message.method, (await resumed.next())?.message.method];
    expect(replayed).toEqual(["notifications/prompts/list_changed", "notifications/resources/list_changed"]);
    resumed.close();
  });

  it("ends idle sessions, and activity keeps a session alive", async () => {
    let clock = 0;
    const http = await serve(catalogue({ legacy: { sessionIdleMs: 1000, now: () => clock } }));
    const session = await rawSession(http.url);
    clock = 900;
    expect((await rawPost(http.url, call(2, "ping"), session.headers)).status).toBe(200);
    clock = 1800;
    expect((await rawPost(http.url, call(3, "ping"), session.headers)).status).toBe(200);
    clock = 2801;
    expect((await rawPost(http.url, call(4, "ping"), session.headers)).status).toBe(404);
  });

  it("caps the sessions of one principal, serves a session to its own principal only", async () => {
    const tokens: Record<string, AuthInfo> = {
      alice: { token: "alice", clientId: "app", subject: "alice", issuer: "https://idp", scopes: [] },
      bob: { token: "bob", clientId: "app", subject: "bob", issuer: "https://idp", scopes: [] },
    };
    const http = await serve(catalogue({ legacy: { maxSessionsPerPrincipal: 2 } }), {
      authenticate: async (req) => tokens[String(req.headers.authorization).replace("Bearer ", "")],
    });
    const as = (name: string) => ({ authorization: `Bearer ${name}` });
    const one = await rawSession(http.url, undefined, {}, as("alice"));
    await rawSession(http.url, undefined, {}, as("alice"));
    const third = await rawPost(http.url, initializeMessage(), as("alice"));
    expect(third.status).toBe(429);
    expect(JSON.stringify(third.messages[0])).toContain("end one with DELETE");
    await rawSession(http.url, undefined, {}, as("bob"));
    const stolen = await rawPost(http.url, call(2, "ping"), { ...one.headers, ...as("bob") });
    expect(stolen.status).toBe(404);
    const ended = await fetch(http.url, { method: "DELETE", headers: one.headers });
    expect(ended.status).toBe(200);
    expect((await rawPost(http.url, initializeMessage(), as("alice"))).status).toBe(200);
  });

  it("routes by era on one endpoint: an enveloped request is 2026-07-28, even beside a session", async () => {
    const http = await serve(catalogue());
    const session = await rawSession(http.url);
    const modern = await post(http.url, rpcRequest("tools/list"));
    expect(modern.status).toBe(200);
    expect(JSON.parse(modern.body).result).toMatchObject({ resultType: "complete", ttlMs: 0 });
    const enveloped = await post(http.url, rpcRequest("tools/list"), {
      headers: { "mcp-session-id": session.id },
    });
    expect(JSON.parse(enveloped.body).result._meta[META.serverInfo]).toEqual({
      name: "sessions",
      version: "1.0.0",
    });
    const legacy = await rawPost(http.url, call(2, "tools/list"), session.headers);
    expect(legacy.messages[0]?.result).not.toHaveProperty("ttlMs");
  });

  it("answers ping, filters logs by the session's level and reports progress", async () => {
    const http = await serve(catalogue());
    const peer = await connectV1(http.url);
    expect(await peer.client.ping()).toEqual({});
    const logs: unknown[] = [];
    peer.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    await peer.client.setLoggingLevel("info");
    const progress: number[] = [];
    await peer.client.callTool({ name: "chatty", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(logs).toEqual(["worth knowing"]);
    expect(progress).toEqual([1, 2]);
    await peer.close();
  });

  it("caps the requests one session holds open, dropped ones included, with 429 saying what to do", async () => {
    const http = await serve(withAsk(catalogue({ legacy: { maxRequestStreamsPerSession: 2 } })));
    const closes = postCloses(http);
    const session = await rawSession(http.url, undefined, { elicitation: {} });
    const first = await RawStream.post(http.url, call(2, "tools/call", { name: "ask" }), session.headers);
    const asked = await first.next();
    const firstClosed = closes.at(-1);
    const second = await RawStream.post(http.url, call(3, "tools/call", { name: "ask" }), session.headers);
    await second.next();
    const refused = await rawPost(http.url, call(4, "tools/call", { name: "hello" }), session.headers);
    expect(refused.status).toBe(429);
    expect(refused.messages).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32600,
          message: expect.stringContaining(
            "wait for one to finish, or cancel one with notifications/cancelled, before sending another",
          ),
          data: { reason: "too_many_request_streams", limit: 2 },
        },
      },
    ]);
    // Per session: another one of the same client is served.
    const other = await rawSession(http.url);
    expect((await rawPost(http.url, call(5, "ping"), other.headers)).status).toBe(200);
    // A call whose client dropped its response still waits for an answer, so it still counts.
    first.close();
    await firstClosed;
    expect((await rawPost(http.url, call(6, "ping"), session.headers)).status).toBe(429);
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } };
    expect((await rawPost(http.url, cancelled, session.headers)).status).toBe(202);
    // The cancelled call's stream, resumed, ends: the call is over and its place is free.
    const resumed = await RawStream.get(http.url, {
      ...session.headers,
      "last-event-id": asked?.id as string,
    });
    while (await resumed.next());
    expect(await rawPost(http.url, call(7, "ping"), session.headers)).toMatchObject({
      status: 200,
      messages: [{ id: 7, result: {} }],
    });
    second.close();
  });

  it.each([0, 1.5, Number.NaN])("refuses legacy.maxRequestStreamsPerSession %s at construction", (limit) => {
    expect(() => catalogue({ legacy: { maxRequestStreamsPerSession: limit } })).toThrow(
      "legacy.maxRequestStreamsPerSession must be a whole number, at least 1",
    );
  });

  it("logs an event store that fails, and neither a cancellation nor the session's end throws", async () => {
    const faults: unknown[] = [];
    const fault = (error: unknown): void => {
      faults.push(error);
    };
    process.on("uncaughtException", fault);
    process.on("unhandledRejection", fault);
    try {
      let failing = false;
      // A store that goes away mid-session, as Redis may: no real store fails on cue.
      class FlakyStore extends InMemoryEventStore {
        override append(streamId: string, message: JsonRpcMessage): Promise<string> {
          return failing ? Promise.reject(new Error("store unreachable")) : super.append(streamId, message);
        }
        override forget(streamId: string): Promise<void> {
          return failing ? Promise.reject(new Error("store unreachable")) : super.forget(streamId);
        }
      }
      const logger = recordingLogger();
      const http = await serve(withAsk(catalogue({ logger, legacy: { eventStore: new FlakyStore() } })));
      const closes = postCloses(http);
      const session = await rawSession(http.url, undefined, { elicitation: {} });
      const stream = await RawStream.post(http.url, call(2, "tools/call", { name: "ask" }), session.headers);
      await stream.next();
      const dropped = closes.at(-1);
      stream.close();
      await dropped;
      failing = true;
      const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } };
      expect((await rawPost(http.url, cancelled, session.headers)).status).toBe(202);
      expect((await fetch(http.url, { method: "DELETE", headers: session.headers })).status).toBe(200);
      // Both faults surface on a later turn, if at all: let them.
      await new Promise((resolve) => setImmediate(resolve));
      expect(faults).toEqual([]);
      expect(logger.records.map((record) => [record.level, record.message])).toEqual(
        expect.arrayContaining([
          [
            "error",
            "an SSE event could not be recorded, so it was not sent and cannot be resumed: the event store failed (check that it is reachable)",
          ],
          [
            "error",
            "the events of an ended session's stream could not be dropped from the store: the event store failed (check that it is reachable)",
          ],
        ]),
      );
      failing = false;
      const fresh = await rawSession(http.url);
      expect(await rawPost(http.url, call(3, "tools/call", { name: "hello" }), fresh.headers)).toMatchObject({
        status: 200,
        messages: [{ id: 3, result: { content: [{ type: "text", text: "hello" }] } }],
      });
    } finally {
      process.off("uncaughtException", fault);
      process.off("unhandledRejection", fault);
    }
  });
});
