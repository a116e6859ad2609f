import { describe, expect, it } from "vitest";
import { McpError } from "../protocol/errors.js";
import {
  createMessage,
  elicitForm,
  elicitUrl,
  inputRequired,
  listRoots,
} from "../protocol/input-required.js";
import type { InputRequiredResult } from "../protocol/schemas/input-required.js";
import { META } from "../protocol/versions.js";
import { ASK_TOOL, fixtureServer } from "../test-support/fixture-server.js";
import {
  aborted,
  deferred,
  errorOf,
  handle,
  recordingLogger,
  resultOf,
  start,
} from "../test-support/in-process.js";
import { envelope, rpcRequest } from "../test-support/messages.js";
import { Server } from "./index.js";

const INFO = { name: "roundtrip-unit", version: "9.9.9" };

function quietServer(options: ConstructorParameters<typeof Server>[1] = {}): Server {
  return new Server(INFO, { logger: recordingLogger(), ...options });
}

function toolsServer(options: ConstructorParameters<typeof Server>[1] = {}): Server {
  return quietServer(options)
    .onListTools(() => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }))
    .onCallTool(() => ({ content: [{ type: "text", text: "ok" }] }));
}

describe("Server: the per-request envelope", () => {
  it("refuses a request without _meta with -32602 before dispatch, naming the required keys", async () => {
    const handled = await handle(toolsServer(), { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const error = errorOf(handled);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(META.protocolVersion);
    expect(error.message).toContain(META.clientCapabilities);
    expect(handled.refusedBeforeDispatch).toBe(true);
  });

  it("refuses a request with no params at all", async () => {
    const handled = await handle(toolsServer(), { jsonrpc: "2.0", id: 2, method: "server/discover" });
    expect(errorOf(handled).code).toBe(-32602);
    expect(handled.refusedBeforeDispatch).toBe(true);
  });

  it.each([
    ["protocolVersion", META.protocolVersion],
    ["clientCapabilities", META.clientCapabilities],
  ])("refuses _meta without %s, naming the key", async (_label, key) => {
    const meta = envelope();
    delete meta[key];
    const handled = await handle(toolsServer(), {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: meta },
    });
    const error = errorOf(handled);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(key);
  });

  it("refuses a malformed capability object in _meta with -32602", async () => {
    const meta = { ...envelope(), [META.clientCapabilities]: "all" };
    const handled = await handle(toolsServer(), {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/list",
      params: { _meta: meta },
    });
    expect(errorOf(handled).code).toBe(-32602);
  });

  it.each(["2025-11-25", "2099-01-01", ""])(
    "answers version %j with -32022 naming the supported and requested versions",
    async (version) => {
      const handled = await handle(toolsServer(), rpcRequest("tools/list", {}, { protocolVersion: version }));
      const error = errorOf(handled);
      expect(error.code).toBe(-32022);
      expect(error.data).toEqual({ supported: ["2026-07-28"], requested: version });
      expect(handled.refusedBeforeDispatch).toBe(true);
    },
  );

  it("checks the envelope before the version, and the version before the method", async () => {
    const noMeta = await handle(toolsServer(), { jsonrpc: "2.0", id: 5, method: "nope/nothing", params: {} });
    expect(errorOf(noMeta).code).toBe(-32602);
    const oldVersion = await handle(
      toolsServer(),
      rpcRequest("nope/nothing", {}, { protocolVersion: "2024-11-05" }),
    );
    expect(errorOf(oldVersion).code).toBe(-32022);
  });

  it("answers initialize with an error that names the supported versions when the legacy era is off", async () => {
    const handled = await handle(toolsServer({ legacy: false }), {
      jsonrpc: "2.0",
      id: 6,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    const error = errorOf(handled);
    expect(error.code).toBe(-32022);
    expect(error.message).toContain("2026-07-28");
    expect(error.message).toContain("server/discover");
    expect(error.data).toEqual({ supported: ["2026-07-28"], requested: "2025-06-18" });
    expect(handled.refusedBeforeDispatch).toBe(true);
  });

  it("answers an initialize that carries the modern envelope as the removed method it is (-32601)", async () => {
    const handled = await handle(toolsServer(), rpcRequest("initialize", { protocolVersion: "2025-11-25" }));
    expect(errorOf(handled).code).toBe(-32601);
  });

  it("runs no transport check for a request whose envelope is malformed", async () => {
    let checked = 0;
    await handle(
      toolsServer(),
      { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: {} } },
      {
        checkTransport: () => {
          checked += 1;
        },
      },
    );
    expect(checked).toBe(0);
  });

  it("runs the transport check before the version check, and its McpError is refused before dispatch", async () => {
    const handled = await handle(
      toolsServer(),
      rpcRequest("tools/list", {}, { protocolVersion: "1999-01-01" }),
      {
        checkTransport: () => {
          throw McpError.headerMismatch("Header mismatch: test");
        },
      },
    );
    expect(errorOf(handled).code).toBe(-32020);
  });
});

describe("Server: the transport's check of a tools/call against its tool", () => {
  const TOOL = { name: "t", inputSchema: { type: "object" as const } };
  const mismatch = () => {
    throw McpError.headerMismatch("Header mismatch: test");
  };

  function countingServer() {
    const counts = { listed: 0, called: 0, middleware: 0 };
    const server = quietServer()
      .use(async (_request, next) => {
        counts.middleware += 1;
        return next();
      })
      .onListTools(() => {
        counts.listed += 1;
        return { tools: [TOOL] };
      })
      .onCallTool(() => {
        counts.called += 1;
        return { content: [] };
      });
    return { server, counts };
  }

  it("finds the tool through the registry that describes it, running no list handler, middleware or call", async () => {
    const { server, counts } = countingServer();
    const seen: unknown[] = [];
    server.describeTools((name) => (name === TOOL.name ? TOOL : undefined));
    const handled = await handle(server, rpcRequest("tools/call", { name: "t", arguments: { a: 1 } }), {
      checkToolCall: (tool, args) => {
        seen.push(tool, args);
        mismatch();
      },
    });
    expect(errorOf(handled).code).toBe(-32020);
    expect(seen).toEqual([TOOL, { a: 1 }]);
    expect(counts).toEqual({ listed: 0, called: 0, middleware: 0 });
  });

  it("skips the check for a tool its registry does not describe", async () => {
    const { server, counts } = countingServer();
    server.describeTools(() => undefined);
    const handled = await handle(server, rpcRequest("tools/call", { name: "t" }), {
      checkToolCall: mismatch,
    });
    expect(resultOf(handled).content).toEqual([]);
    expect(counts).toEqual({ listed: 0, called: 1, middleware: 1 });
  });

  it("refuses a request the server cannot serve before it reads any list for the check", async () => {
    const { server, counts } = countingServer();
    const handled = await handle(
      server,
      rpcRequest("tools/call", { name: "t" }, { protocolVersion: "1999-01-01" }),
      {
        checkToolCall: mismatch,
      },
    );
    expect(errorOf(handled).code).toBe(-32022);
    expect(counts.listed).toBe(0);
  });

  it("without a registry, reads its own list once and then checks against what it listed", async () => {
    const { server, counts } = countingServer();
    for (let i = 0; i < 2; i++) {
      const handled = await handle(server, rpcRequest("tools/call", { name: "t" }), {
        checkToolCall: mismatch,
      });
      expect(errorOf(handled).code).toBe(-32020);
    }
    expect(counts).toEqual({ listed: 1, called: 0, middleware: 0 });
  });
});

describe("Server: methods and capabilities", () => {
  it("answers an unknown method with -32601 before dispatch", async () => {
    const handled = await handle(toolsServer(), rpcRequest("tools/destroy"));
    expect(errorOf(handled)).toEqual({ code: -32601, message: "Method not found: tools/destroy" });
    expect(handled.refusedBeforeDispatch).toBe(true);
  });

  it.each(["prompts/list", "prompts/get", "resources/list", "resources/read", "completion/complete"])(
    "answers %s with -32601 on a server that does not advertise its capability",
    async (method) => {
      const handled = await handle(toolsServer(), rpcRequest(method, { name: "x", uri: "file:///x" }));
      expect(errorOf(handled).code).toBe(-32601);
    },
  );

  it("answers -32601 when the configured capabilities withdraw a feature that has a handler", async () => {
    const server = quietServer({ capabilities: { prompts: undefined } }).onListPrompts(() => ({
      prompts: [],
    }));
    const discovered = resultOf(await handle(server, rpcRequest("server/discover")));
    expect(discovered.capabilities).not.toHaveProperty("prompts");
    expect(errorOf(await handle(server, rpcRequest("prompts/list"))).code).toBe(-32601);
  });

  it("answers the removed methods of earlier revisions with -32601", async () => {
    for (const method of ["ping", "logging/setLevel", "resources/subscribe", "tasks/get"]) {
      expect(errorOf(await handle(toolsServer(), rpcRequest(method))).code).toBe(-32601);
    }
  });
});

describe("Server: server/discover", () => {
  it("advertises the versions and the capabilities derived from the handlers, with cache hints and serverInfo", async () => {
    const { server } = fixtureServer({ instructions: "Ask about the weather." });
    const result = resultOf(await handle(server, rpcRequest("server/discover")));
    expect(result).toEqual({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
      },
      instructions: "Ask about the weather.",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { [META.serverInfo]: { name: "roundtrip-fixture", version: "1.2.3" } },
    });
  });

  it("uses the configured cache policy", async () => {
    const server = quietServer({ cache: { ttlMs: 60_000, cacheScope: "public" } });
    const result = resultOf(await handle(server, rpcRequest("server/discover")));
    expect(result.ttlMs).toBe(60_000);
    expect(result.cacheScope).toBe("public");
    expect(result.capabilities).toEqual({ logging: {} });
  });

  it("serves each request on its own: a discover with different capabilities sees nothing of an earlier one", async () => {
    const server = toolsServer();
    const first = resultOf(
      await handle(server, rpcRequest("server/discover", {}, { capabilities: { roots: {} } })),
    );
    const second = resultOf(await handle(server, rpcRequest("server/discover")));
    expect(second).toEqual(first);
  });
});

describe("Server: results", () => {
  it("fills in resultType when a handler omits it", async () => {
    const server = toolsServer().onComplete(() => ({ completion: { values: ["a"] } }));
    const call = resultOf(await handle(server, rpcRequest("tools/call", { name: "t" })));
    expect(call.resultType).toBe("complete");
    const list = resultOf(await handle(server, rpcRequest("tools/list")));
    expect(list.resultType).toBe("complete");
    const completion = resultOf(
      await handle(
        server,
        rpcRequest("completion/complete", {
          ref: { type: "ref/prompt", name: "p" },
          argument: { name: "a", value: "" },
        }),
      ),
    );
    expect(completion).toMatchObject({ resultType: "complete", completion: { values: ["a"] } });
  });

  it("puts serverInfo in the _meta of every result, keeping the handler's own _meta keys", async () => {
    const server = quietServer().onCallTool(() => ({
      content: [],
      _meta: { "com.example/trace": "abc" },
    }));
    const result = resultOf(await handle(server, rpcRequest("tools/call", { name: "t" })));
    expect(result._meta).toEqual({ "com.example/trace": "abc", [META.serverInfo]: INFO });
  });

  it.each([
    ["tools/list", { tools: [] }],
    ["prompts/list", { prompts: [] }],
    ["resources/list", { resources: [] }],
    ["resources/templates/list", { resourceTemplates: [] }],
    ["resources/read", { contents: [] }],
  ])(
    "puts ttlMs and cacheScope on %s: the handler's own, else the configured policy",
    async (method, body) => {
      const configured = quietServer({ cache: { ttlMs: 5_000, cacheScope: "public" } });
      const own = quietServer({ cache: { ttlMs: 5_000, cacheScope: "public" } });
      const handler = () => body;
      const ownHandler = () => ({ ...body, ttlMs: 42, cacheScope: "private" as const });
      for (const [server, h] of [
        [configured, handler],
        [own, ownHandler],
      ] as const) {
        server
          .onListTools(h as never)
          .onListPrompts(h as never)
          .onListResources(h as never)
          .onListResourceTemplates(h as never)
          .onReadResource(h as never);
      }
      const params = method === "resources/read" ? { uri: "file:///a" } : {};
      expect(resultOf(await handle(configured, rpcRequest(method, params)))).toMatchObject({
        ttlMs: 5_000,
        cacheScope: "public",
      });
      expect(resultOf(await handle(own, rpcRequest(method, params)))).toMatchObject({
        ttlMs: 42,
        cacheScope: "private",
      });
    },
  );

  it("puts no cache hints on results that are not cacheable", async () => {
    const server = quietServer({ cache: { ttlMs: 5_000, cacheScope: "public" } })
      .onCallTool(() => ({ content: [] }))
      .onGetPrompt(() => ({ messages: [] }));
    const call = resultOf(await handle(server, rpcRequest("tools/call", { name: "t" })));
    const prompt = resultOf(await handle(server, rpcRequest("prompts/get", { name: "p" })));
    for (const result of [call, prompt]) {
      expect(result).not.toHaveProperty("ttlMs");
      expect(result).not.toHaveProperty("cacheScope");
    }
  });

  it.each([
    ["requestState", { requestState: "s-1" }],
    ["inputResponses", { inputResponses: { k: { action: "decline" } } }],
  ])("never lets a retry's resources/read result be cached (%s)", async (_label, retry) => {
    const server = quietServer().onReadResource((_ctx, params) => ({
      contents: [{ uri: params.uri, text: "secret for this user" }],
      ttlMs: 3_600_000,
      cacheScope: "public",
    }));
    const first = resultOf(await handle(server, rpcRequest("resources/read", { uri: "file:///r" })));
    expect(first).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    const retried = resultOf(
      await handle(server, rpcRequest("resources/read", { uri: "file:///r", ...retry })),
    );
    expect(retried).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
  });

  it("treats a null requestState and null inputResponses as absent: the handler sees neither", async () => {
    const seen: unknown[] = [];
    const server = quietServer().onReadResource((_ctx, params) => {
      seen.push({ state: "requestState" in params, responses: "inputResponses" in params });
      return { contents: [], ttlMs: 10, cacheScope: "public" };
    });
    const result = resultOf(
      await handle(
        server,
        rpcRequest("resources/read", { uri: "file:///r", requestState: null, inputResponses: null }),
      ),
    );
    expect(result).toMatchObject({ ttlMs: 10, cacheScope: "public" });
    expect(seen).toEqual([{ state: false, responses: false }]);
  });

  it("still refuses a requestState that is neither a string nor null", async () => {
    const server = quietServer().onReadResource(() => ({ contents: [] }));
    const handled = await handle(
      server,
      rpcRequest("resources/read", { uri: "file:///r", requestState: 42 }),
    );
    expect(errorOf(handled).code).toBe(-32602);
  });
});

describe("Server: InputRequiredResult", () => {
  const form = elicitForm("Name?", { type: "object", properties: { n: { type: "string" } } });

  it.each([
    ["tools/call", { name: "t" }],
    ["prompts/get", { name: "p" }],
    ["resources/read", { uri: "file:///r" }],
  ])("lets %s answer input_required, without cache hints and with serverInfo", async (method, params) => {
    const asking = (): InputRequiredResult =>
      inputRequired({ inputRequests: { q: form }, requestState: "st" });
    const server = quietServer({ cache: { ttlMs: 1000, cacheScope: "public" } })
      .onCallTool(asking)
      .onGetPrompt(asking)
      .onReadResource(asking);
    const result = resultOf(
      await handle(server, rpcRequest(method, params, { capabilities: { elicitation: {} } })),
    );
    expect(result).toEqual({
      resultType: "input_required",
      inputRequests: { q: form },
      requestState: "st",
      _meta: { [META.serverInfo]: INFO },
    });
  });

  it("lets a carrier answer with requestState only (load shedding)", async () => {
    const server = quietServer().onCallTool(() => inputRequired({ requestState: "later" }));
    const result = resultOf(await handle(server, rpcRequest("tools/call", { name: "t" })));
    expect(result).toMatchObject({ resultType: "input_required", requestState: "later" });
    expect(result).not.toHaveProperty("inputRequests");
  });

  it("completes the round trip: the retry carries the answer and the echoed state", async () => {
    const { server } = fixtureServer();
    const caps = { capabilities: { elicitation: { form: {} } } };
    const first = resultOf(await handle(server, rpcRequest("tools/call", { name: ASK_TOOL.name }, caps)));
    expect(first.resultType).toBe("input_required");
    const retry = resultOf(
      await handle(
        server,
        rpcRequest(
          "tools/call",
          {
            name: ASK_TOOL.name,
            inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
            requestState: first.requestState,
          },
          caps,
        ),
      ),
    );
    expect(retry).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello, Ada (round-1)" }],
    });
  });

  it.each([
    ["tools/list", "onListTools"],
    ["prompts/list", "onListPrompts"],
    ["resources/list", "onListResources"],
    ["resources/templates/list", "onListResourceTemplates"],
    ["completion/complete", "onComplete"],
  ] as const)(
    "turns input_required from %s into a bare -32603 with nothing internal on the wire",
    async (method, on) => {
      const logger = recordingLogger();
      const server = new Server(INFO, { logger });
      server[on](() => inputRequired({ requestState: "internal-state-9f2e" }) as never);
      const params =
        method === "completion/complete"
          ? { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }
          : {};
      const handled = await handle(server, rpcRequest(method, params));
      expect(handled.message).toEqual({
        jsonrpc: "2.0",
        id: handled.message.id,
        error: { code: -32603, message: "Internal error" },
      });
      expect(JSON.stringify(handled.message)).not.toContain("internal-state");
      expect(
        logger.records.some(
          (r) => r.level === "error" && String(r.fields.reason).includes("only tools/call"),
        ),
      ).toBe(true);
    },
  );

  it.each([
    ["neither inputRequests nor requestState", { resultType: "input_required" }],
    ["an empty inputRequests and no requestState", { resultType: "input_required", inputRequests: {} }],
    ["a requestState that is not a string", { resultType: "input_required", requestState: 42 }],
    [
      "an input request of an unknown kind",
      { resultType: "input_required", inputRequests: { a: { method: "ping", params: {} } } },
    ],
    [
      "an elicitation without its schema",
      {
        resultType: "input_required",
        inputRequests: { a: { method: "elicitation/create", params: { message: "m" } } },
      },
    ],
  ])("turns an InputRequiredResult with %s into -32603", async (_label, result) => {
    const server = quietServer().onCallTool(() => result as never);
    const handled = await handle(
      server,
      rpcRequest("tools/call", { name: "t" }, { capabilities: { elicitation: {} } }),
    );
    expect(errorOf(handled)).toEqual({ code: -32603, message: "Internal error" });
  });

  it("refuses an input request the client did not declare with -32021", async () => {
    const server = quietServer().onCallTool(() => inputRequired({ inputRequests: { q: form } }));
    const handled = await handle(server, rpcRequest("tools/call", { name: "t" }));
    const error = errorOf(handled);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
    expect(handled.refusedBeforeDispatch).toBe(false);
  });

  it("judges capabilities per request: the retry that declares them gets the questions", async () => {
    const server = quietServer().onCallTool(() =>
      inputRequired({
        inputRequests: { u: elicitUrl("Sign in", "https://example.com/login"), r: listRoots() },
      }),
    );
    const without = await handle(
      server,
      rpcRequest("tools/call", { name: "t" }, { capabilities: { elicitation: {} } }),
    );
    expect(errorOf(without).data).toEqual({ requiredCapabilities: { elicitation: { url: {} }, roots: {} } });
    const withCaps = await handle(
      server,
      rpcRequest("tools/call", { name: "t" }, { capabilities: { elicitation: { url: {} }, roots: {} } }),
    );
    expect(resultOf(withCaps).resultType).toBe("input_required");
    const again = await handle(server, rpcRequest("tools/call", { name: "t" }));
    expect(errorOf(again).code).toBe(-32021);
  });

  it("sends sampling requests to a client that declared sampling", async () => {
    const server = quietServer().onGetPrompt(() =>
      inputRequired({
        inputRequests: {
          s: createMessage({
            messages: [{ role: "user", content: { type: "text", text: "hi" } }],
            maxTokens: 10,
          }),
        },
      }),
    );
    const handled = await handle(
      server,
      rpcRequest("prompts/get", { name: "p" }, { capabilities: { sampling: {} } }),
    );
    expect(resultOf(handled).inputRequests).toHaveProperty("s.method", "sampling/createMessage");
  });
});

describe("Server: handler failures", () => {
  it("turns a tool handler that throws into a generic isError result naming the request", async () => {
    const { server } = fixtureServer();
    const handled = await handle(server, rpcRequest("tools/call", { name: "fail" }, { id: 31 }));
    expect(resultOf(handled)).toEqual({
      resultType: "complete",
      content: [{ type: "text", text: "Tool execution failed (request 31)" }],
      isError: true,
      _meta: { [META.serverInfo]: { name: "roundtrip-fixture", version: "1.2.3" } },
    });
  });

  it("turns a tool handler that throws a non-Error into a generic isError result", async () => {
    const server = quietServer().onCallTool(() => {
      throw "a string with /internal/path";
    });
    const result = resultOf(await handle(server, rpcRequest("tools/call", { name: "t" }, { id: 32 })));
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Tool execution failed (request 32)" }],
    });
  });

  it.each([
    ["prompts/get", { name: "p" }],
    ["resources/read", { uri: "file:///r" }],
    ["tools/list", {}],
  ])(
    "turns any other handler failure (%s) into -32603 Internal error with no internals",
    async (method, params) => {
      const logger = recordingLogger();
      const failing = () => {
        throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2");
      };
      const server = new Server(INFO, { logger })
        .onGetPrompt(failing)
        .onReadResource(failing)
        .onListTools(failing);
      const handled = await handle(server, rpcRequest(method, params));
      expect(errorOf(handled)).toEqual({ code: -32603, message: "Internal error" });
      expect(JSON.stringify(handled.message)).not.toMatch(/ECONNREFUSED|hunter2/);
      expect(logger.records.some((r) => r.level === "error")).toBe(true);
    },
  );

  it("turns a handler that returns no object into -32603", async () => {
    const server = quietServer().onGetPrompt(() => null as never);
    expect(errorOf(await handle(server, rpcRequest("prompts/get", { name: "p" })))).toEqual({
      code: -32603,
      message: "Internal error",
    });
  });

  it.each([
    ["tools/call", { name: "t" }],
    ["prompts/get", { name: "p" }],
  ])("lets an McpError thrown by the %s handler travel as it is", async (method, params) => {
    const thrown = McpError.invalidParams("Unknown tool: t", { name: "t" });
    const server = quietServer()
      .onCallTool(() => {
        throw thrown;
      })
      .onGetPrompt(() => {
        throw thrown;
      });
    const handled = await handle(server, rpcRequest(method, params));
    expect(errorOf(handled)).toEqual({ code: -32602, message: "Unknown tool: t", data: { name: "t" } });
    expect(handled.refusedBeforeDispatch).toBe(false);
  });

  it("refuses params that do not match the method with -32602", async () => {
    const server = toolsServer();
    const handled = await handle(server, rpcRequest("tools/call", { arguments: {} }));
    const error = errorOf(handled);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("name");
  });
});

describe("Server: request-scoped notifications", () => {
  it("sends progress only when the request carries a progressToken", async () => {
    const { server } = fixtureServer();
    const without = await handle(server, rpcRequest("tools/call", { name: "chatty" }));
    expect(without.notifications).toEqual([]);
    const withToken = await handle(
      server,
      rpcRequest("tools/call", { name: "chatty" }, { progressToken: "p-1" }),
    );
    expect(withToken.notifications).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-1", progress: 1, total: 3, message: "first" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-1", progress: 2, total: 3 },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-1", progress: 3, total: 3, message: "done" },
      },
    ]);
  });

  it("sends log messages only when _meta asks for a level, at that level or more severe", async () => {
    const { server } = fixtureServer();
    const none = await handle(server, rpcRequest("tools/call", { name: "chatty" }));
    expect(none.notifications).toEqual([]);
    const info = await handle(server, rpcRequest("tools/call", { name: "chatty" }, { logLevel: "info" }));
    expect(info.notifications).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: { step: "info detail" }, logger: "chatty" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "error", data: "something went wrong" },
      },
    ]);
    const debug = await handle(server, rpcRequest("tools/call", { name: "chatty" }, { logLevel: "debug" }));
    expect(debug.notifications.map((n) => n.params?.level)).toEqual(["debug", "info", "error"]);
    const critical = await handle(
      server,
      rpcRequest("tools/call", { name: "chatty" }, { logLevel: "critical" }),
    );
    expect(critical.notifications).toEqual([]);
  });

  it("refuses an unknown logLevel with -32602", async () => {
    const { server } = fixtureServer();
    const meta = { ...envelope(), [META.logLevel]: "verbose" };
    const handled = await handle(server, {
      jsonrpc: "2.0",
      id: 99,
      method: "tools/call",
      params: { _meta: meta, name: "chatty" },
    });
    expect(errorOf(handled).code).toBe(-32602);
  });

  it("sends nothing more once the request is aborted", async () => {
    const release = deferred();
    const server = quietServer().onCallTool(async (ctx) => {
      await ctx.sendProgress(1);
      await release.promise;
      await ctx.sendProgress(2);
      await ctx.log("error", "after abort");
      return { content: [] };
    });
    const controller = new AbortController();
    const started = start(
      server,
      rpcRequest("tools/call", { name: "t" }, { progressToken: 7, logLevel: "debug" }),
      { signal: controller.signal },
    );
    expect((await started.notifications.next()).params?.progress).toBe(1);
    controller.abort();
    release.resolve();
    const handled = await started.done;
    expect(handled.notifications).toHaveLength(1);
  });

  it("hands the request's signal, identity and capabilities to the handler", async () => {
    const seen = deferred<{
      aborted: Promise<void>;
      caps: unknown;
      id: unknown;
      version: string;
      client: unknown;
    }>();
    const server = quietServer().onCallTool((ctx) => {
      seen.resolve({
        aborted: aborted(ctx.signal),
        caps: ctx.clientCapabilities,
        id: ctx.requestId,
        version: ctx.protocolVersion,
        client: ctx.clientInfo,
      });
      return { content: [] };
    });
    const controller = new AbortController();
    await handle(
      server,
      rpcRequest("tools/call", { name: "t" }, { id: "req-1", capabilities: { roots: {} } }),
      {
        signal: controller.signal,
      },
    );
    const ctx = await seen.promise;
    expect(ctx).toMatchObject({ caps: { roots: {} }, id: "req-1", version: "2026-07-28" });
    expect(ctx.client).toEqual({ name: "roundtrip-wire-tests", version: "0.0.0" });
    controller.abort();
    await ctx.aborted;
  });
});
