import { existsSync, readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { rpcRequest } from "./messages.js";
import {
  assertClientRequest,
  assertErrorResponse,
  assertResultResponse,
  assertServerMessage,
  assertServerNotification,
  SCHEMA_PATH,
  schemaDefinitions,
  schemaErrors,
  schemaExamples,
} from "./wire-schema.js";

const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } };

describe("wire schema: the official schema and examples", () => {
  it("finds the schema fixture inside the package", () => {
    expect(existsSync(SCHEMA_PATH)).toBe(true);
    expect(isAbsolute(SCHEMA_PATH)).toBe(true);
    expect(SCHEMA_PATH).toMatch(/[\\/]sdk[\\/]test-fixtures[\\/]mcp-2026-07-28[\\/]schema\.json$/);
    expect(schemaDefinitions().has("InputRequiredResult")).toBe(true);
  });

  it("keeps the fixture to structure: no title or description annotation is left", () => {
    // In the schema a string-valued `title` or `description` can only be an annotation: as property
    // names (Tool has both) their values are subschemas, and in `required` they are array entries.
    const annotations: string[] = [];
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"), (key, value: unknown) => {
      if ((key === "title" || key === "description") && typeof value === "string") annotations.push(key);
      return value;
    }) as { $defs: { Tool: { properties: Record<string, unknown> } } };
    expect(annotations).toEqual([]);
    expect(Object.keys(schema.$defs.Tool.properties)).toEqual(
      expect.arrayContaining(["title", "description"]),
    );
  });

  it("accepts every official example as its own $defs type", () => {
    const examples = schemaExamples();
    expect(examples.length).toBeGreaterThan(100);
    const failures = examples
      .map((e) => ({ at: `${e.def}/${e.file}`, errors: schemaErrors(e.def, e.value) }))
      .filter((f) => f.errors.length > 0);
    expect(failures).toEqual([]);
  });

  it("refuses an unknown $defs type instead of passing silently", () => {
    expect(() => schemaErrors("InitializeResult", {})).toThrow(/no \$defs type/);
  });
});

describe("wire schema: results", () => {
  it("accepts a complete tools/call result and an input_required one", () => {
    expect(() =>
      assertResultResponse("tools/call", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", content: [{ type: "text", text: "hi" }], _meta: serverInfo },
      }),
    ).not.toThrow();
    expect(() =>
      assertResultResponse("tools/call", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "input_required", requestState: "s1" },
      }),
    ).not.toThrow();
  });

  it("refuses a result without resultType", () => {
    expect(() =>
      assertResultResponse("tools/call", { jsonrpc: "2.0", id: 1, result: { content: [] } }),
    ).toThrow(/resultType/);
  });

  it("refuses a complete tools/call result without content, although the schema's anyOf admits it", () => {
    expect(() =>
      assertResultResponse("tools/call", { jsonrpc: "2.0", id: 1, result: { resultType: "complete" } }),
    ).toThrow(/CallToolResult/);
  });

  it("refuses input_required outside the three carriers", () => {
    expect(() =>
      assertResultResponse("tools/list", {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "input_required",
          requestState: "x",
          tools: [],
          ttlMs: 0,
          cacheScope: "private",
        },
      }),
    ).toThrow(/only tools\/call/);
  });

  it("refuses an InputRequiredResult with neither inputRequests nor requestState, or with cache hints", () => {
    expect(() =>
      assertResultResponse("prompts/get", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "input_required" },
      }),
    ).toThrow(/neither/);
    expect(() =>
      assertResultResponse("resources/read", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "input_required", requestState: "s", ttlMs: 5, cacheScope: "public" },
      }),
    ).toThrow(/not cacheable/);
  });

  it("refuses an input request of an unknown kind", () => {
    expect(() =>
      assertResultResponse("tools/call", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "input_required", inputRequests: { a: { method: "ping", params: {} } } },
      }),
    ).toThrow(/inputRequests\/a\/method/);
  });

  it("refuses cacheable results without ttlMs and cacheScope, and unknown result types", () => {
    expect(() =>
      assertResultResponse("server/discover", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} },
      }),
    ).toThrow(/DiscoverResult/);
    expect(() =>
      assertResultResponse("completion/complete", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "deferred", completion: { values: [] } },
      }),
    ).toThrow(/unexpected resultType/);
  });
});

describe("wire schema: errors and notifications", () => {
  it("checks each defined code against its typed error", () => {
    expect(() =>
      assertErrorResponse({ jsonrpc: "2.0", id: 1, error: { code: -32021, message: "m" } }),
    ).toThrow(/MissingRequiredClientCapabilityError/);
    expect(() =>
      assertErrorResponse({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32022, message: "m", data: { supported: [] } },
      }),
    ).toThrow(/UnsupportedProtocolVersionError/);
    expect(() =>
      assertErrorResponse({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32021, message: "m", data: { requiredCapabilities: { roots: {} } } },
      }),
    ).not.toThrow();
  });

  it("refuses reserved codes the protocol does not define", () => {
    for (const code of [-32002, -32042, -32001, -32099]) {
      expect(() => assertErrorResponse({ jsonrpc: "2.0", id: 1, error: { code, message: "m" } })).toThrow(
        /reserved/,
      );
    }
  });

  it("refuses a request id that is neither string nor integer, and a wrong expected code", () => {
    expect(() =>
      assertErrorResponse({ jsonrpc: "2.0", id: 1.5, error: { code: -32600, message: "m" } }),
    ).toThrow(/JSONRPCErrorResponse/);
    expect(() =>
      assertErrorResponse({ jsonrpc: "2.0", error: { code: -32600, message: "m" } }, -32700),
    ).toThrow(/expected error code -32700/);
  });

  it("checks notifications against their own type and refuses server-sent requests", () => {
    expect(() =>
      assertServerNotification({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }),
    ).toThrow(/ProgressNotification/);
    expect(() => assertServerNotification({ jsonrpc: "2.0", method: "notifications/initialized" })).toThrow(
      /not a server notification/,
    );
    expect(() =>
      assertServerMessage({ jsonrpc: "2.0", id: 3, method: "elicitation/create", params: {} }, "tools/call"),
    ).toThrow(/never sends JSON-RPC requests/);
  });

  it("validates the test clients' own requests", () => {
    expect(() => assertClientRequest(rpcRequest("tools/list"))).not.toThrow();
    expect(() => assertClientRequest({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })).toThrow();
  });
});

describe("wire schema: the tasks extension", () => {
  const task = {
    taskId: "t1",
    status: "working",
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: "2026-01-01T00:00:00.000Z",
    ttlMs: 60_000,
  };

  it("accepts a flat CreateTaskResult on tools/call and a DetailedTask on tasks/get", () => {
    expect(() =>
      assertResultResponse("tools/call", { jsonrpc: "2.0", id: 1, result: { resultType: "task", ...task } }),
    ).not.toThrow();
    expect(() =>
      assertResultResponse("tasks/get", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", ...task, status: "completed", result: { content: [] } },
      }),
    ).not.toThrow();
  });

  it("refuses a CreateTaskResult whose ttlMs is no integer, or that carries requestState", () => {
    expect(() =>
      assertResultResponse("tools/call", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "task", ...task, ttlMs: 1.5 },
      }),
    ).toThrow(/CreateTaskResult/);
    expect(() =>
      assertResultResponse("tools/call", {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "task", ...task, requestState: "s" },
      }),
    ).toThrow(/requestState/);
  });

  it("refuses a task outside tools/call, and a tasks/update ack that is not complete", () => {
    expect(() =>
      assertResultResponse("prompts/get", { jsonrpc: "2.0", id: 1, result: { resultType: "task", ...task } }),
    ).toThrow(/only tools\/call/);
    expect(() =>
      assertResultResponse("tasks/update", { jsonrpc: "2.0", id: 1, result: { resultType: "task" } }),
    ).toThrow(/UpdateTaskResult/);
  });
});
