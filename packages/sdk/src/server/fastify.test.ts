import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { META } from "../protocol/versions.js";
import { type Fixture, fixtureServer, WEATHER_TOOL } from "../test-support/fixture-server.js";
import { errorOf, notificationsOf, post, resultOf, SseReader, send } from "../test-support/http.js";
import { mcpHeaders, rpcNotification, rpcRequest } from "../test-support/messages.js";
import { mcpFastify } from "./fastify.js";

const LIMIT = 2048;
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let fixture: Fixture;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  fixture = fixtureServer();
  app = Fastify({ logger: false });
  app.get("/health", async () => ({ ok: true }));
  await app.register(mcpFastify, { server: fixture.server, path: "/mcp", maxBodyBytes: LIMIT });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  url = `${address}/mcp`;
});

afterAll(async () => {
  fixture.server.close();
  await app.close();
});

describe("mcpFastify: serving", () => {
  it("serves requests with valid results and leaves the app's other routes alone", async () => {
    const reply = await post(url, rpcRequest("server/discover"));
    expect(reply.status).toBe(200);
    expect(resultOf(reply)).toMatchObject({
      supportedVersions: ["2026-07-28"],
      _meta: { [META.serverInfo]: { name: "roundtrip-fixture" } },
    });
    const health = await fetch(url.replace("/mcp", "/health"));
    expect(await health.json()).toEqual({ ok: true });
  });

  it("checks the request headers, including Mcp-Param-*", async () => {
    const request = rpcRequest("tools/call", {
      name: WEATHER_TOOL.name,
      arguments: { region: "Oslo", days: 2 },
    });
    expect((await post(url, request, { tool: WEATHER_TOOL })).status).toBe(200);
    const mismatched = await post(url, request, { tool: WEATHER_TOOL, headers: { "mcp-param-days": "3" } });
    expect(mismatched.status).toBe(400);
    expect(errorOf(mismatched).code).toBe(-32020);
  });

  it("streams request-scoped notifications as SSE before the response", async () => {
    const reply = await post(url, rpcRequest("tools/call", { name: "chatty" }, { progressToken: 1 }));
    expect(reply.contentType).toBe("text/event-stream");
    expect(notificationsOf(reply).map((n) => n.method)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
    ]);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: "chatted" }]);
  });

  it("answers input_required and a missing capability as on plain node:http", async () => {
    const asked = await post(
      url,
      rpcRequest("tools/call", { name: "ask" }, { capabilities: { elicitation: {} } }),
    );
    expect(resultOf(asked).resultType).toBe("input_required");
    const refused = await post(url, rpcRequest("tools/call", { name: "ask" }));
    expect(refused.status).toBe(400);
    expect(errorOf(refused).code).toBe(-32021);
  });

  it("202 for a notification", async () => {
    const reply = await post(url, rpcNotification("notifications/cancelled", { requestId: 3 }));
    expect(reply.status).toBe(202);
    expect(reply.body).toBe("");
  });

  it("holds a subscription open and ends it when the server closes", async () => {
    const local = fixtureServer();
    const localApp = Fastify({ logger: false });
    await localApp.register(mcpFastify, { server: local.server });
    const address = await localApp.listen({ host: "127.0.0.1", port: 0 });
    try {
      const stream = await SseReader.open(
        `${address}/mcp`,
        rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "fs" }),
      );
      expect(await stream.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      local.server.notifyToolsListChanged();
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { [META.subscriptionId]: "fs" } },
      });
      local.server.close();
      expect(await stream.next()).toMatchObject({ id: "fs", result: { resultType: "complete" } });
      expect(await stream.next()).toBeUndefined();
    } finally {
      local.server.close();
      await localApp.close();
    }
  });

  it("aborts the handler when the client disconnects", async () => {
    const controller = new AbortController();
    const request = rpcRequest("tools/call", { name: "slow" });
    const pending = post(url, request, { signal: controller.signal });
    const signal = await fixture.slowCalls.next();
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await fixture.slowAborted.next()).toBe(String(request.id));
    expect(signal.aborted).toBe(true);
  });
});

describe("mcpFastify: protocol errors instead of Fastify's own", () => {
  it("400 -32700 for malformed JSON", async () => {
    const reply = await send(url, { method: "POST", headers: JSON_HEADERS, body: '{"jsonrpc":' });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32700);
    expect(reply.body).not.toContain("FST_");
  });

  it("400 -32700 for an empty body", async () => {
    const reply = await send(url, { method: "POST", headers: JSON_HEADERS, body: "" });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32700);
  });

  it("400 -32600 for a batch", async () => {
    const reply = await send(url, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify([rpcRequest("tools/list")]),
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("413 with a JSON-RPC error for a declared Content-Length over the limit", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(LIMIT * 2) } });
    const reply = await post(url, request);
    expect(reply.status).toBe(413);
    expect(errorOf(reply).code).toBe(-32600);
    expect(reply.body).not.toContain("FST_");
  });

  it("413 with a JSON-RPC error for a chunked body that grows over the limit", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(LIMIT * 4) } });
    const bytes = new TextEncoder().encode(JSON.stringify(request));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.slice(i, i + 256));
        controller.close();
      },
    });
    const reply = await send(
      url,
      { method: "POST", headers: mcpHeaders(request), body, duplex: "half" } as RequestInit,
      "tools/call",
    );
    expect(reply.status).toBe(413);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("415 with a JSON-RPC error for another content type", async () => {
    const reply = await send(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, "content-type": "text/plain" },
      body: JSON.stringify(rpcRequest("tools/list")),
    });
    expect(reply.status).toBe(415);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("415 with a JSON-RPC error for a body without a content type", async () => {
    const request = rpcRequest("tools/list");
    const headers = mcpHeaders(request);
    delete headers["content-type"];
    const reply = await send(url, {
      method: "POST",
      headers,
      body: new TextEncoder().encode(JSON.stringify(request)),
    });
    expect(reply.status).toBe(415);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it.each(["PUT", "PATCH"])("405 with Allow: POST, GET, DELETE for %s", async (method) => {
    const reply = await send(url, { method });
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("POST, GET, DELETE");
  });

  it.each(["GET", "DELETE"])("400 for %s without a 2025-era session", async (method) => {
    const reply = await send(url, { method, headers: { accept: "text/event-stream" } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).message).toContain("send initialize first");
  });

  it("403 for an Origin that is not allowed", async () => {
    const reply = await post(url, rpcRequest("tools/list"), { headers: { origin: "https://evil.example" } });
    expect(reply.status).toBe(403);
  });
});

describe("mcpFastify: living with other plugins' hooks", () => {
  let hooked: FastifyInstance;
  let hookedUrl: string;

  beforeAll(async () => {
    hooked = Fastify({ logger: false });
    await hooked.register(async (scope) => {
      scope.addHook("onRequest", async (request, reply) => {
        reply.header("x-request-id", "req-42");
        if (request.headers["x-refuse"] === "yes") {
          throw Object.assign(new Error("Too many requests, retry later"), { statusCode: 429 });
        }
      });
      await scope.register(mcpFastify, { server: fixture.server, path: "/mcp" });
    });
    const address = await hooked.listen({ host: "127.0.0.1", port: 0 });
    hookedUrl = `${address}/mcp`;
  });

  afterAll(async () => {
    await hooked.close();
  });

  it("keeps headers that hooks set through Fastify on the MCP response", async () => {
    const reply = await post(hookedUrl, rpcRequest("server/discover"));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-request-id")).toBe("req-42");
  });

  it("keeps a hook's own refusal status and message instead of turning it into a 500", async () => {
    const response = await fetch(hookedUrl, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...mcpHeaders(rpcRequest("server/discover")), "x-refuse": "yes" },
      body: JSON.stringify(rpcRequest("server/discover")),
    });
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ error: "Too many requests, retry later" });
  });
});
