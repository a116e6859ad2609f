import { describe, expect, it } from "vitest";
import { assertErrorResponse, assertServerNotification } from "../test-support/wire-schema.js";
import { McpError } from "./errors.js";
import {
  errorResponse,
  isErrorResponse,
  notification,
  parseInboundMessage,
  readRequestId,
  resultResponse,
} from "./jsonrpc.js";

function refusal(value: unknown): McpError {
  try {
    parseInboundMessage(value);
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    const refused = error as McpError;
    assertErrorResponse(errorResponse(readRequestId(value), refused.toJSON()), refused.code);
    return refused;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe("parseInboundMessage", () => {
  it("classifies a request and a notification", () => {
    const request = { jsonrpc: "2.0", id: "a", method: "tools/list", params: { _meta: {} } };
    expect(parseInboundMessage(request)).toEqual({ kind: "request", message: request });
    const note = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } };
    expect(parseInboundMessage(note)).toEqual({ kind: "notification", message: note });
  });

  it("accepts integer ids, including 0 and negatives, and requests without params", () => {
    for (const id of [0, -1, 2 ** 31]) {
      expect(parseInboundMessage({ jsonrpc: "2.0", id, method: "m" }).kind).toBe("request");
    }
  });

  it("refuses a batch, naming the rule", () => {
    const error = refusal([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/Batch/);
  });

  it("refuses an empty batch", () => {
    expect(refusal([]).code).toBe(-32600);
  });

  it.each([
    ["a result", { jsonrpc: "2.0", id: 1, result: {} }],
    ["an error", { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } }],
  ])("refuses a posted response (%s)", (_label, value) => {
    const error = refusal(value);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/no JSON-RPC responses/);
  });

  it.each([
    ["a string", "hello"],
    ["a number", 1],
    ["null", null],
    ["true", true],
    ["no jsonrpc", { id: 1, method: "m" }],
    ["jsonrpc 2", { jsonrpc: 2, id: 1, method: "m" }],
    ["no method", { jsonrpc: "2.0", id: 1 }],
    ["a numeric method", { jsonrpc: "2.0", id: 1, method: 5 }],
    ["params as an array", { jsonrpc: "2.0", id: 1, method: "m", params: [1] }],
    ["params as a string", { jsonrpc: "2.0", id: 1, method: "m", params: "x" }],
    ["a null id", { jsonrpc: "2.0", id: null, method: "m" }],
    ["a fractional id", { jsonrpc: "2.0", id: 0.5, method: "m" }],
    ["a boolean id", { jsonrpc: "2.0", id: false, method: "m" }],
    ["an array id", { jsonrpc: "2.0", id: [1], method: "m" }],
  ])("refuses %s with -32600", (_label, value) => {
    expect(refusal(value).code).toBe(-32600);
  });
});

describe("readRequestId", () => {
  it("reads a valid id and nothing else", () => {
    expect(readRequestId({ id: 3 })).toBe(3);
    expect(readRequestId({ id: "x" })).toBe("x");
    expect(readRequestId({ id: 1.5 })).toBeUndefined();
    expect(readRequestId([{ id: 1 }])).toBeUndefined();
    expect(readRequestId("x")).toBeUndefined();
  });
});

describe("message builders", () => {
  it("builds error responses with and without id", () => {
    const withId = errorResponse(7, McpError.methodNotFound("x/y").toJSON());
    expect(withId).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32601, message: "Method not found: x/y" },
    });
    assertErrorResponse(withId, -32601);
    const withoutId = errorResponse(undefined, McpError.parseError().toJSON());
    expect(withoutId).not.toHaveProperty("id");
    assertErrorResponse(withoutId, -32700);
    expect(isErrorResponse(withId)).toBe(true);
    expect(isErrorResponse(resultResponse(1, { resultType: "complete" }))).toBe(false);
  });

  it("builds the typed errors of 2026-07-28 as the schema defines them", () => {
    assertErrorResponse(
      errorResponse(1, McpError.unsupportedVersion("2025-01-01", ["2026-07-28"]).toJSON()),
      -32022,
    );
    assertErrorResponse(errorResponse(1, McpError.missingCapability({ roots: {} }).toJSON()), -32021);
    assertErrorResponse(errorResponse(1, McpError.headerMismatch("Header mismatch: x").toJSON()), -32020);
    assertErrorResponse(errorResponse(1, McpError.internal().toJSON()), -32603);
    assertErrorResponse(
      errorResponse(1, McpError.invalidParams("bad", { uri: "file:///x" }).toJSON()),
      -32602,
    );
    expect(McpError.internal().toJSON()).toEqual({ code: -32603, message: "Internal error" });
  });

  it("builds notifications with and without params", () => {
    const bare = notification("notifications/tools/list_changed");
    expect(bare).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    assertServerNotification(bare);
    const withParams = notification("notifications/progress", { progressToken: 1, progress: 0.5 });
    assertServerNotification(withParams);
  });
});
