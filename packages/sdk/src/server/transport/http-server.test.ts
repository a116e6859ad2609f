import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import {
  createMessage,
  elicitForm,
  elicitUrl,
  inputRequired,
  listRoots,
} from "../../protocol/input-required.js";
import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { InputRequest } from "../../protocol/schemas/input-required.js";
import { META } from "../../protocol/versions.js";
import {
  ECHO_ALIASES,
  ECHO_TOOL,
  type Fixture,
  fixtureServer,
  WEATHER_TOOL,
} from "../../test-support/fixture-server.js";
import {
  errorOf,
  notificationsOf,
  post,
  type RunningHttpServer,
  resultOf,
  SseReader,
  send,
  startHttpServer,
} from "../../test-support/http.js";
import { recordingLogger } from "../../test-support/in-process.js";
import { envelope, mcpHeaders, rpcNotification, rpcRequest } from "../../test-support/messages.js";
import { Server } from "../index.js";

let fixture: Fixture;
let http: RunningHttpServer;

beforeAll(async () => {
  fixture = fixtureServer();
  http = await startHttpServer(fixture.server);
});
afterAll(async () => {
  await http.close();
});

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("Streamable HTTP: results", () => {
  it("answers server/discover with 200 and a JSON body", async () => {
    const reply = await post(http.url, rpcRequest("server/discover"));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("application/json");
    expect(resultOf(reply)).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      _meta: { [META.serverInfo]: { name: "roundtrip-fixture", version: "1.2.3" } },
    });
  });

  it.each([
    ["tools/list", {}],
    ["prompts/list", {}],
    ["prompts/get", { name: "greet", arguments: { who: "Ada" } }],
    ["resources/list", {}],
    ["resources/templates/list", {}],
    ["resources/read", { uri: "file:///notes/a.txt" }],
    [
      "completion/complete",
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "who", value: "A" } },
    ],
    ["tools/call", { name: "echo", arguments: { text: "hi" } }],
  ])("answers %s with 200 and a valid result", async (method, params) => {
    const reply = await post(http.url, rpcRequest(method, params));
    expect(reply.status).toBe(200);
    expect(resultOf(reply).resultType).toBe("complete");
  });

  it("answers input_required with 200, then completes the retry", async () => {
    const caps = { capabilities: { elicitation: {} } };
    const first = await post(http.url, rpcRequest("tools/call", { name: "ask" }, caps));
    expect(first.status).toBe(200);
    const asked = resultOf(first);
    expect(asked).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        name: { method: "elicitation/create", params: { mode: "form", message: "Your name?" } },
      },
      requestState: "round-1",
    });
    const retry = await post(
      http.url,
      rpcRequest(
        "tools/call",
        {
          name: "ask",
          inputResponses: { name: { action: "accept", content: { name: "Grace" } } },
          requestState: asked.requestState,
        },
        caps,
      ),
    );
    expect(resultOf(retry).content).toEqual([{ type: "text", text: "Hello, Grace (round-1)" }]);
  });

  it("answers a failing tool with 200 and isError, and another failing handler with -32603 and no internals", async () => {
    const tool = await post(http.url, rpcRequest("tools/call", { name: "fail" }));
    expect(tool.status).toBe(200);
    expect(resultOf(tool)).toMatchObject({ isError: true });

    const server = new Server({ name: "s", version: "1" }, { logger: recordingLogger() }).onGetPrompt(() => {
      throw new Error("db password=hunter2");
    });
    const local = await startHttpServer(server);
    try {
      const reply = await post(local.url, rpcRequest("prompts/get", { name: "p" }));
      expect(reply.status).toBe(200);
      expect(errorOf(reply)).toEqual({ code: -32603, message: "Internal error" });
      expect(reply.body).not.toContain("hunter2");
    } finally {
      await local.close();
    }
  });

  it("sends an McpError thrown by a handler as it is", async () => {
    const reply = await post(http.url, rpcRequest("prompts/get", { name: "nope" }));
    expect(errorOf(reply)).toEqual({
      code: -32602,
      message: "Unknown tool or prompt: nope",
      data: { name: "nope" },
    });
  });

  it("ignores a Last-Event-ID header: there is no resumption", async () => {
    const reply = await post(http.url, rpcRequest("tools/list"), { headers: { "last-event-id": "7" } });
    expect(reply.status).toBe(200);
    expect(resultOf(reply).resultType).toBe("complete");
  });
});

describe("Streamable HTTP: the status table", () => {
  it("403 for an Origin that is not allowed, with a JSON-RPC error without id", async () => {
    const reply = await post(http.url, rpcRequest("tools/list"), {
      headers: { origin: "http://evil.example" },
    });
    expect(reply.status).toBe(403);
    expect(reply.messages).toHaveLength(1);
    expect(reply.messages[0]).not.toHaveProperty("id");
  });

  it("admits a loopback Origin by default, and the configured origins otherwise", async () => {
    const loopback = await post(http.url, rpcRequest("tools/list"), {
      headers: { origin: "http://localhost:5173" },
    });
    expect(loopback.status).toBe(200);

    const local = await startHttpServer(fixtureServer().server, { allowedOrigins: ["https://app.example"] });
    try {
      const allowed = await post(local.url, rpcRequest("tools/list"), {
        headers: { origin: "https://app.example" },
      });
      expect(allowed.status).toBe(200);
      const refused = await post(local.url, rpcRequest("tools/list"), {
        headers: { origin: "http://localhost:5173" },
      });
      expect(refused.status).toBe(403);
    } finally {
      await local.close();
    }
  });

  it("403 for a Host outside the allow-list", async () => {
    const local = await startHttpServer(fixtureServer().server, { allowedHosts: ["localhost"] });
    try {
      const refused = await post(local.url, rpcRequest("tools/list"));
      expect(refused.status).toBe(403);
    } finally {
      await local.close();
    }
    const open = await startHttpServer(fixtureServer().server, { allowedHosts: ["127.0.0.1"] });
    try {
      expect((await post(open.url, rpcRequest("tools/list"))).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it.each([
    ["no _meta", (p: Record<string, unknown>) => delete p._meta],
    [
      "no protocolVersion",
      (p: Record<string, unknown>) => delete (p._meta as Record<string, unknown>)[META.protocolVersion],
    ],
    [
      "no clientCapabilities",
      (p: Record<string, unknown>) => delete (p._meta as Record<string, unknown>)[META.clientCapabilities],
    ],
  ])("400 -32602 for a request with %s", async (_label, strip) => {
    const request = rpcRequest("tools/list");
    const headers = mcpHeaders(request);
    strip(request.params as Record<string, unknown>);
    const reply = await post(http.url, request, { headers });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32602);
  });

  it("400 -32022 for an unsupported version, naming supported and requested", async () => {
    const reply = await post(http.url, rpcRequest("tools/list", {}, { protocolVersion: "2025-11-25" }));
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2025-11-25" },
    });
  });

  it("400 -32022 for a legacy initialize when the legacy era is off, naming the supported versions", async () => {
    const modernOnly = await startHttpServer(fixtureServer({ legacy: false }).server);
    const reply = await send(
      modernOnly.url,
      {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "old", version: "1" },
          },
        }),
      },
      "initialize",
    );
    expect(reply.status).toBe(400);
    const error = errorOf(reply);
    expect(error.code).toBe(-32022);
    expect(error.message).toContain("2026-07-28");
    expect(error.data).toEqual({ supported: ["2026-07-28"], requested: "2025-11-25" });
    await modernOnly.close();
  });

  it("400 -32021 for a missing client capability, although raised after dispatch", async () => {
    const reply = await post(
      http.url,
      rpcRequest("tools/call", { name: "ask" }, { capabilities: { roots: {} } }),
    );
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  describe("400 -32021 for each kind of input request the client did not declare", () => {
    const text = { type: "text" as const, text: "hi" };
    const asks: Record<string, InputRequest> = {
      form: elicitForm("Name?", { type: "object", properties: { n: { type: "string" } } }),
      url: elicitUrl("Sign in", "https://auth.example.com/start"),
      sampling: createMessage({ messages: [{ role: "user", content: text }], maxTokens: 5 }),
      "sampling-tools": createMessage({
        messages: [{ role: "user", content: text }],
        maxTokens: 5,
        tools: [{ name: "lookup", inputSchema: { type: "object" } }],
      }),
      roots: listRoots(),
    };
    let gate: RunningHttpServer;
    beforeAll(async () => {
      const server = new Server({ name: "gate", version: "1" }, { logger: recordingLogger() }).onCallTool(
        (_ctx, params) => {
          const ask = asks[params.name];
          if (!ask) throw McpError.invalidParams(`Unknown tool: ${params.name}`);
          return inputRequired({ inputRequests: { q: ask } });
        },
      );
      gate = await startHttpServer(server);
    });
    afterAll(async () => {
      await gate.close();
    });

    it.each<[string, ClientCapabilities, ClientCapabilities, ClientCapabilities]>([
      ["form", { elicitation: { url: {} } }, { elicitation: { form: {} } }, { elicitation: {} }],
      ["url", { elicitation: {} }, { elicitation: { url: {} } }, { elicitation: { url: {} } }],
      ["sampling", { roots: {} }, { sampling: {} }, { sampling: {} }],
      ["sampling-tools", { sampling: {} }, { sampling: { tools: {} } }, { sampling: { tools: {} } }],
      ["roots", { elicitation: {} }, { roots: {} }, { roots: {} }],
    ])("%s", async (name, declared, required, sufficient) => {
      const refused = await post(gate.url, rpcRequest("tools/call", { name }, { capabilities: declared }));
      expect(refused.status).toBe(400);
      expect(errorOf(refused)).toMatchObject({ code: -32021, data: { requiredCapabilities: required } });
      const served = await post(gate.url, rpcRequest("tools/call", { name }, { capabilities: sufficient }));
      expect(served.status).toBe(200);
      expect(resultOf(served).resultType).toBe("input_required");
    });
  });

  it("404 -32601 for an initialize that carries the modern envelope", async () => {
    const reply = await post(http.url, rpcRequest("initialize", { protocolVersion: "2025-11-25" }));
    expect(reply.status).toBe(404);
    expect(errorOf(reply).code).toBe(-32601);
  });

  it("404 -32601 for an unknown method and for a feature the server does not advertise", async () => {
    const unknown = await post(http.url, rpcRequest("tools/delete"));
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).code).toBe(-32601);

    const toolsOnly = new Server({ name: "t", version: "1" }, { logger: recordingLogger() }).onListTools(
      () => ({
        tools: [],
      }),
    );
    const local = await startHttpServer(toolsOnly);
    try {
      const reply = await post(local.url, rpcRequest("prompts/list"));
      expect(reply.status).toBe(404);
      expect(errorOf(reply).code).toBe(-32601);
    } finally {
      await local.close();
    }
  });

  it("202 with an empty body for a notification", async () => {
    const reply = await post(http.url, rpcNotification("notifications/cancelled", { requestId: 1 }));
    expect(reply.status).toBe(202);
    expect(reply.body).toBe("");
  });

  it.each(["PUT", "PATCH"])("405 with Allow: POST, GET, DELETE for %s", async (method) => {
    const reply = await send(http.url, {
      method,
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("POST, GET, DELETE");
  });

  it.each(["GET", "DELETE", "PUT"])(
    "405 with Allow: POST for %s when the legacy era is off",
    async (method) => {
      const modernOnly = await startHttpServer(fixtureServer({ legacy: false }).server);
      const reply = await send(modernOnly.url, {
        method,
        headers: { accept: "application/json, text/event-stream" },
      });
      await modernOnly.close();
      expect(reply.status).toBe(405);
      expect(reply.headers.get("allow")).toBe("POST");
    },
  );

  it("415 for a body that is not application/json", async () => {
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded"]) {
      const reply = await send(http.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, "content-type": contentType },
        body: JSON.stringify(rpcRequest("tools/list")),
      });
      expect(reply.status).toBe(415);
      expect(errorOf(reply).code).toBe(-32600);
    }
  });

  it("accepts application/json with parameters", async () => {
    const request = rpcRequest("tools/list");
    const reply = await post(http.url, request, {
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(reply.status).toBe(200);
  });

  it("406 for an Accept that admits neither JSON nor SSE", async () => {
    const reply = await post(http.url, rpcRequest("tools/list"), { headers: { accept: "text/html" } });
    expect(reply.status).toBe(406);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("answers a client that accepts only event streams with one SSE event", async () => {
    const reply = await post(http.url, rpcRequest("tools/list"), {
      headers: { accept: "text/event-stream" },
    });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain("text/event-stream");
    expect(reply.messages).toHaveLength(1);
  });

  it.each([
    ["-32022", -32022, 400, rpcRequest("tools/list", {}, { protocolVersion: "2025-11-25" })],
    ["-32601", -32601, 404, rpcRequest("no/such/method")],
    ["-32602 for a malformed envelope", -32602, 400, { ...rpcRequest("tools/list"), params: {} }],
    ["-32020", -32020, 400, rpcRequest("tools/call", { name: "echo", arguments: {} })],
  ])(
    "answers %s with its own status to a client that accepts only event streams",
    async (_label, code, status, request) => {
      const headers: Record<string, string | undefined> = { accept: "text/event-stream" };
      if (request.method === "tools/call") headers["mcp-name"] = "other";
      const reply = await post(http.url, request, { headers });
      expect(reply.status).toBe(status);
      expect(reply.contentType).toBe("application/json");
      expect(reply.messages).toMatchObject([{ id: request.id, error: { code } }]);
    },
  );

  it("treats q=0 as refusal: JSON refused means an SSE answer", async () => {
    const reply = await post(http.url, rpcRequest("tools/list"), {
      headers: { accept: "application/json;q=0, text/event-stream" },
    });
    expect(reply.contentType).toContain("text/event-stream");
  });

  it("400 -32700 for a body that is not JSON", async () => {
    const reply = await send(http.url, {
      method: "POST",
      headers: JSON_HEADERS,
      body: '{"jsonrpc":"2.0","id":1,',
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32700);
    expect(reply.messages[0]).not.toHaveProperty("id");
  });

  it("400 -32700 for an empty body", async () => {
    const reply = await send(http.url, { method: "POST", headers: JSON_HEADERS, body: "" });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32700);
  });

  it.each([
    ["a batch", [rpcRequest("tools/list")], undefined],
    ["a posted result", { jsonrpc: "2.0", id: 5, result: { resultType: "complete" } }, 5],
    ["a posted error", { jsonrpc: "2.0", id: "e", error: { code: -32603, message: "x" } }, "e"],
    ["a string", "tools/list", undefined],
    ["a number", 42, undefined],
    ["null", null, undefined],
    ["a message without jsonrpc", { id: 1, method: "tools/list", params: {} }, 1],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "tools/list" }, 1],
    ["a method that is not a string", { jsonrpc: "2.0", id: 2, method: 7 }, 2],
    ["params that are an array", { jsonrpc: "2.0", id: 3, method: "tools/list", params: [] }, 3],
    ["a fractional id", { jsonrpc: "2.0", id: 1.5, method: "tools/list", params: {} }, undefined],
    ["a null id", { jsonrpc: "2.0", id: null, method: "tools/list", params: {} }, undefined],
    ["an object id", { jsonrpc: "2.0", id: { n: 1 }, method: "tools/list", params: {} }, undefined],
  ])("400 -32600 for %s", async (_label, body, id) => {
    const reply = await send(http.url, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body) });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32600);
    if (id === undefined) expect(reply.messages[0]).not.toHaveProperty("id");
    else expect(reply.messages[0]).toHaveProperty("id", id);
  });
});

describe("Streamable HTTP: the authenticate hook", () => {
  it("hands the validated token to the handler", async () => {
    const server = new Server({ name: "auth", version: "1" }, { logger: recordingLogger() }).onCallTool(
      (ctx) => ({
        content: [{ type: "text", text: `${ctx.auth?.clientId}/${ctx.auth?.subject}` }],
      }),
    );
    const local = await startHttpServer(server, {
      authenticate: async (req) => ({
        token: String(req.headers.authorization).replace(/^Bearer /, ""),
        clientId: "client-1",
        subject: "alice",
        scopes: [],
      }),
    });
    try {
      const reply = await post(local.url, rpcRequest("tools/call", { name: "t" }), {
        headers: { authorization: "Bearer tkn" },
      });
      expect(resultOf(reply).content).toEqual([{ type: "text", text: "client-1/alice" }]);
    } finally {
      await local.close();
    }
  });

  it("answers an authenticate hook that fails unexpectedly with 500 and a bare -32603", async () => {
    const local = await startHttpServer(fixtureServer().server, {
      authenticate: async () => {
        throw new Error("introspection endpoint https://idp.internal refused");
      },
    });
    try {
      const reply = await post(local.url, rpcRequest("tools/list"));
      expect(reply.status).toBe(500);
      expect(errorOf(reply)).toEqual({ code: -32603, message: "Internal error" });
      expect(reply.body).not.toContain("idp.internal");
    } finally {
      await local.close();
    }
  });
});

describe("Streamable HTTP: body size", () => {
  let small: RunningHttpServer;
  beforeAll(async () => {
    small = await startHttpServer(fixtureServer().server, { maxBodyBytes: 1024 });
  });
  afterAll(async () => {
    await small.close();
  });

  it("413 for a declared Content-Length over the limit", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(4096) } });
    const reply = await post(small.url, request);
    expect(reply.status).toBe(413);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("413 for a chunked body that grows over the limit", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(8192) } });
    const bytes = new TextEncoder().encode(JSON.stringify(request));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const reply = await send(
      small.url,
      { method: "POST", headers: mcpHeaders(request), body, duplex: "half" } as RequestInit,
      "tools/call",
    );
    expect(reply.status).toBe(413);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("serves a body just under the limit", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "ok" } });
    expect((await post(small.url, request)).status).toBe(200);
  });
});

describe("Streamable HTTP: request metadata headers", () => {
  it.each([
    ["MCP-Protocol-Version is missing", { "mcp-protocol-version": undefined }],
    ["MCP-Protocol-Version differs from _meta", { "mcp-protocol-version": "2025-06-18" }],
    ["Mcp-Method is missing", { "mcp-method": undefined }],
    ["Mcp-Method differs from the body", { "mcp-method": "tools/list" }],
    ["Mcp-Method differs in case", { "mcp-method": "Tools/Call" }],
    ["Mcp-Name is missing", { "mcp-name": undefined }],
    ["Mcp-Name differs from the tool name", { "mcp-name": "weather" }],
  ])("400 -32020 when %s", async (_label, headers) => {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "echo", arguments: {} }), {
      headers,
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("names the header and both values in the mismatch message", async () => {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "echo" }), {
      headers: { "mcp-name": "foo" },
    });
    expect(errorOf(reply).message).toBe(
      "Header mismatch: Mcp-Name header value 'foo' does not match body value 'echo'",
    );
  });

  it("checks the headers before the version: a mismatched version header is -32020, a matching old one -32022", async () => {
    const request = rpcRequest("tools/list", {}, { protocolVersion: "2099-01-01" });
    const mismatched = await post(http.url, request, { headers: { "mcp-protocol-version": "2026-07-28" } });
    expect(mismatched.status).toBe(400);
    expect(errorOf(mismatched).code).toBe(-32020);
    const matching = await post(http.url, request);
    expect(errorOf(matching)).toMatchObject({ code: -32022, data: { requested: "2099-01-01" } });
  });

  it("requires Mcp-Method on requests that need no Mcp-Name", async () => {
    for (const method of ["server/discover", "tools/list", "prompts/list"]) {
      const reply = await post(http.url, rpcRequest(method), { headers: { "mcp-method": undefined } });
      expect(reply.status).toBe(400);
      expect(errorOf(reply).code).toBe(-32020);
    }
  });

  it("uses the prompt name for prompts/get", async () => {
    const ok = await post(http.url, rpcRequest("prompts/get", { name: "greet" }));
    expect(ok.status).toBe(200);
    const bad = await post(http.url, rpcRequest("prompts/get", { name: "greet" }), {
      headers: { "mcp-name": "other" },
    });
    expect(errorOf(bad).code).toBe(-32020);
  });

  it("uses the uri, not a name, for resources/read", async () => {
    const request = rpcRequest("resources/read", { uri: "file:///notes/a.txt" });
    expect(mcpHeaders(request)["mcp-name"]).toBe("file:///notes/a.txt");
    expect((await post(http.url, request)).status).toBe(200);
    const byName = await post(http.url, request, { headers: { "mcp-name": "a.txt" } });
    expect(byName.status).toBe(400);
    expect(errorOf(byName).code).toBe(-32020);
    const missing = await post(http.url, request, { headers: { "mcp-name": undefined } });
    expect(errorOf(missing).code).toBe(-32020);
  });

  it("decodes a base64 Mcp-Name for a name that is not safe ASCII", async () => {
    const name = ECHO_ALIASES[0];
    const request = rpcRequest("tools/call", { name, arguments: {} });
    const headers = mcpHeaders(request);
    expect(headers["mcp-name"]).toBe(`=?base64?${Buffer.from(name).toString("base64")}?=`);
    const reply = await post(http.url, request);
    expect(reply.status).toBe(200);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: `${name}: {}` }]);
  });

  it("decodes a plain value that looks like the sentinel only when it is itself encoded", async () => {
    const name = ECHO_ALIASES[1];
    const request = rpcRequest("tools/call", { name });
    expect(mcpHeaders(request)["mcp-name"]).toBe(`=?base64?${Buffer.from(name).toString("base64")}?=`);
    expect((await post(http.url, request)).status).toBe(200);
    const plain = await post(http.url, request, { headers: { "mcp-name": name } });
    expect(plain.status).toBe(400);
    expect(errorOf(plain)).toMatchObject({
      code: -32020,
      message: `Header mismatch: Mcp-Name header value 'Hi' does not match body value '${name}'`,
    });
  });

  it.each([
    ["a non-ASCII byte sent raw", "caf\u00e9"],
    ["a tab inside", "a\tb"],
    ["a base64 payload that is not canonical", "=?base64?SGk?=="],
    ["a base64 payload that is not UTF-8", "=?base64?/w==?="],
    ["a base64 payload with a bad length", "=?base64?SGkx?="],
  ])("400 -32020 for an Mcp-Name with %s", async (_label, value) => {
    const reply = await post(http.url, rpcRequest("resources/read", { uri: "file:///x" }), {
      headers: { "mcp-name": value },
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });
});

describe("Streamable HTTP: Mcp-Param-* headers", () => {
  const call = (args: Record<string, unknown>) =>
    rpcRequest("tools/call", { name: WEATHER_TOOL.name, arguments: args });

  it("accepts the headers a correct client derives from x-mcp-header", async () => {
    const request = call({
      region: "Zürich",
      days: 3,
      metric: true,
      options: { station: "=?base64?x?=" },
      note: "n",
    });
    const headers = mcpHeaders(request, WEATHER_TOOL);
    expect(headers).toMatchObject({
      "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=`,
      "mcp-param-days": "3",
      "mcp-param-metric": "true",
      "mcp-param-station": `=?base64?${Buffer.from("=?base64?x?=").toString("base64")}?=`,
    });
    expect(headers).not.toHaveProperty("mcp-param-note");
    const reply = await post(http.url, request, { tool: WEATHER_TOOL });
    expect(reply.status).toBe(200);
  });

  it("needs no header for an absent or null argument", async () => {
    const reply = await post(http.url, call({ region: "Oslo", days: null }), { tool: WEATHER_TOOL });
    expect(reply.status).toBe(200);
  });

  it.each([
    [
      "the header is missing while the argument is present",
      { region: "Oslo" },
      { "mcp-param-region": undefined },
    ],
    ["the string differs", { region: "Oslo" }, { "mcp-param-region": "Bergen" }],
    ["the string differs in case", { region: "Oslo" }, { "mcp-param-region": "oslo" }],
    ["the header is present without its argument", { region: "Oslo" }, { "mcp-param-days": "3" }],
    ["the integer differs", { days: 3 }, { "mcp-param-days": "4" }],
    ["the integer has a fraction", { days: 3 }, { "mcp-param-days": "3.5" }],
    [
      "the integer differs only past double precision",
      { days: 3 },
      { "mcp-param-days": "3.0000000000000001" },
    ],
    ["the integer has a leading zero", { days: 7 }, { "mcp-param-days": "007" }],
    ["the integer has a plus sign", { days: 7 }, { "mcp-param-days": "+7" }],
    ["the integer is hexadecimal", { days: 10 }, { "mcp-param-days": "0xA" }],
    ["the integer header is not a number", { days: 3 }, { "mcp-param-days": "three" }],
    ["the boolean differs", { metric: true }, { "mcp-param-metric": "false" }],
    ["the boolean is spelled otherwise", { metric: true }, { "mcp-param-metric": "1" }],
    [
      "a nested argument's header is missing",
      { options: { station: "S1" } },
      { "mcp-param-station": undefined },
    ],
    ["the header has invalid characters", { region: "Oslo" }, { "mcp-param-region": "Os\u00f8lo" }],
    ["the header has bad base64", { region: "Oslo" }, { "mcp-param-region": "=?base64?T3Nsbw?=" }],
    [
      "the header hides a plain sentinel-looking value",
      { region: "=?base64?T3Nsbw==?=" },
      { "mcp-param-region": "=?base64?T3Nsbw==?=" },
    ],
  ])("400 -32020 when %s", async (_label, args, headers) => {
    const reply = await post(http.url, call(args), { tool: WEATHER_TOOL, headers });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it.each(["7", "7.0", "7.000", "0.7e1", "70E-1", "7e0"])(
    "compares integers numerically: %s agrees with 7",
    async (header) => {
      const reply = await post(http.url, call({ days: 7 }), {
        tool: WEATHER_TOOL,
        headers: { "mcp-param-days": header },
      });
      expect(reply.status).toBe(200);
    },
  );

  it("compares negative integers and zero numerically", async () => {
    const negative = await post(http.url, call({ days: -2 }), {
      tool: WEATHER_TOOL,
      headers: { "mcp-param-days": "-2.0" },
    });
    expect(negative.status).toBe(200);
    const zero = await post(http.url, call({ days: 0 }), {
      tool: WEATHER_TOOL,
      headers: { "mcp-param-days": "-0" },
    });
    expect(zero.status).toBe(200);
  });

  it("reads an annotated argument named like an Object member from the arguments only", async () => {
    // Parsed, not written as a literal: `__proto__` in a literal would set the prototype, not a property.
    const properties = JSON.parse(
      '{"__proto__": {"type": "boolean", "x-mcp-header": "Proto"}, "constructor": {"type": "string", "x-mcp-header": "Kind"}}',
    ) as Record<string, unknown>;
    const tool = { name: "inherit", inputSchema: { type: "object" as const, properties } };
    const server = new Server({ name: "inherit", version: "1.0.0" });
    server.onListTools(() => ({ tools: [tool] }));
    server.onCallTool(() => ({ content: [] }));
    const own = await startHttpServer(server);
    try {
      const absent = rpcRequest("tools/call", { name: tool.name, arguments: {} });
      expect((await post(own.url, absent, { tool })).status).toBe(200);
      const present = rpcRequest("tools/call", {
        name: tool.name,
        arguments: JSON.parse('{"__proto__": true, "constructor": "box"}') as Record<string, unknown>,
      });
      expect(mcpHeaders(present, tool)).toMatchObject({ "mcp-param-proto": "true", "mcp-param-kind": "box" });
      expect((await post(own.url, present, { tool })).status).toBe(200);
      const missing = await post(own.url, present, { tool, headers: { "mcp-param-kind": undefined } });
      expect(errorOf(missing).code).toBe(-32020);
    } finally {
      await own.close();
    }
  });

  it("matches the header name case-insensitively", async () => {
    const request = call({ region: "Oslo" });
    const reply = await post(http.url, request, {
      headers: {
        ...mcpHeaders(request, WEATHER_TOOL),
        "MCP-PARAM-REGION": "Oslo",
        "mcp-param-region": undefined,
      },
    });
    expect(reply.status).toBe(200);
  });

  it("leaves unannotated tools and unknown Mcp-Param-* headers alone", async () => {
    const request = rpcRequest("tools/call", { name: ECHO_TOOL.name, arguments: { text: "hi" } });
    const reply = await post(http.url, request, { headers: { "mcp-param-whatever": "x" } });
    expect(reply.status).toBe(200);
  });
});

describe("Streamable HTTP: request-scoped notifications on SSE", () => {
  it("streams progress and the requested log levels before the final response", async () => {
    const request = rpcRequest("tools/call", { name: "chatty" }, { progressToken: "tok", logLevel: "info" });
    const reply = await post(http.url, request);
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("text/event-stream");
    expect(reply.headers.get("x-accel-buffering")).toBe("no");
    expect(notificationsOf(reply).map((n) => [n.method, n.params?.progress ?? n.params?.level])).toEqual([
      ["notifications/progress", 1],
      ["notifications/message", "info"],
      ["notifications/progress", 2],
      ["notifications/message", "error"],
      ["notifications/progress", 3],
    ]);
    const last = reply.messages.at(-1) as { id: unknown };
    expect(last.id).toBe(request.id);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: "chatted" }]);
    for (const n of notificationsOf(reply)) expect(n.params?._meta).toBeUndefined();
  });

  it("answers with plain JSON when the request asked for no notifications", async () => {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "chatty" }));
    expect(reply.contentType).toBe("application/json");
    expect(reply.messages).toHaveLength(1);
  });

  it("sends no notifications to a client that does not accept SSE", async () => {
    const reply = await post(
      http.url,
      rpcRequest("tools/call", { name: "chatty" }, { progressToken: 1, logLevel: "debug" }),
      {
        headers: { accept: "application/json" },
      },
    );
    expect(reply.contentType).toBe("application/json");
    expect(resultOf(reply).content).toEqual([{ type: "text", text: "chatted" }]);
  });

  it("ends the stream with an error response when the handler fails after notifying", async () => {
    const server = new Server({ name: "s", version: "1" }, { logger: recordingLogger() }).onCallTool(
      async (ctx) => {
        await ctx.sendProgress(1);
        throw McpError.invalidParams("bad argument after progress");
      },
    );
    const local = await startHttpServer(server);
    try {
      const reply = await post(local.url, rpcRequest("tools/call", { name: "t" }, { progressToken: 9 }));
      expect(reply.contentType).toBe("text/event-stream");
      expect(reply.messages).toHaveLength(2);
      expect(errorOf(reply).message).toBe("bad argument after progress");
    } finally {
      await local.close();
    }
  });
});

describe("Streamable HTTP: client disconnect", () => {
  it("aborts the handler's AbortSignal when the client goes away", async () => {
    const controller = new AbortController();
    const request = rpcRequest("tools/call", { name: "slow" });
    const pending = post(http.url, request, { signal: controller.signal });
    const signal = await fixture.slowCalls.next();
    expect(signal.aborted).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await fixture.slowAborted.next()).toBe(String(request.id));
    expect(signal.aborted).toBe(true);
  });
});

describe("Streamable HTTP: subscriptions/listen", () => {
  it("406 when the client does not accept text/event-stream", async () => {
    const reply = await post(
      http.url,
      rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }),
      { headers: { accept: "application/json" } },
    );
    expect(reply.status).toBe(406);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("acknowledges first, then delivers only the honoured notifications, all tagged, and ends with the result", async () => {
    const { server } = fixtureServer({ capabilities: { prompts: { listChanged: false } } });
    const local = await startHttpServer(server);
    try {
      const request = rpcRequest(
        "subscriptions/listen",
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ["file:///notes/a.txt"],
          },
        },
        { id: "listen-1" },
      );
      const stream = await SseReader.open(local.url, request);
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toBe("text/event-stream");
      const tag = { [META.subscriptionId]: "listen-1" };
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///notes/a.txt"] },
          _meta: tag,
        },
      });
      server.notifyPromptsListChanged();
      server.notifyResourcesListChanged();
      server.notifyResourceUpdated("file:///notes/other.txt");
      server.notifyToolsListChanged();
      server.notifyResourceUpdated("file:///notes/a.txt");
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: tag },
      });
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "file:///notes/a.txt", _meta: tag },
      });
      server.close();
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        id: "listen-1",
        result: {
          resultType: "complete",
          _meta: { ...tag, [META.serverInfo]: { name: "roundtrip-fixture", version: "1.2.3" } },
        },
      });
      expect(await stream.next()).toBeUndefined();
    } finally {
      await local.close();
    }
  });

  it("refuses a listen request with a bad envelope before opening a stream", async () => {
    const request = rpcRequest("subscriptions/listen", { notifications: {} });
    const reply = await post(
      http.url,
      { ...request, params: { notifications: {} } },
      { headers: mcpHeaders(request) },
    );
    expect(reply.status).toBe(400);
    expect(reply.contentType).toBe("application/json");
    expect(errorOf(reply).code).toBe(-32602);
  });

  it("refuses a listen request whose _meta is malformed in a way the headers cannot hide", async () => {
    const reply = await post(http.url, {
      jsonrpc: "2.0",
      id: 77,
      method: "subscriptions/listen",
      params: { _meta: { ...envelope(), [META.clientCapabilities]: [] }, notifications: {} },
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32602);
  });
});

describe("Streamable HTTP: input_required rules on the wire", () => {
  it("answers a list handler's InputRequiredResult with -32603 and nothing internal", async () => {
    const server = new Server({ name: "s", version: "1" }, { logger: recordingLogger() }).onListTools(
      () =>
        inputRequired({ inputRequests: { q: elicitForm("x", { type: "object", properties: {} }) } }) as never,
    );
    const local = await startHttpServer(server);
    try {
      const reply = await post(
        local.url,
        rpcRequest("tools/list", {}, { capabilities: { elicitation: {} } }),
      );
      expect(errorOf(reply)).toEqual({ code: -32603, message: "Internal error" });
      expect(reply.body).not.toContain("elicitation");
    } finally {
      await local.close();
    }
  });
});
