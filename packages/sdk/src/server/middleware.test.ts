import { describe, expect, it } from "vitest";
import { McpError } from "../protocol/errors.js";
import { META } from "../protocol/versions.js";
import { errorOf, handle, recordingLogger, resultOf } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import { Server } from "./index.js";
import type { Middleware } from "./middleware.js";

function echoServer(calls: string[]): Server {
  return new Server({ name: "mw", version: "1" }, { logger: recordingLogger() }).onCallTool(
    (_ctx, params) => {
      calls.push(`handler:${JSON.stringify(params.arguments ?? {})}`);
      return { content: [{ type: "text", text: JSON.stringify(params.arguments ?? {}) }] };
    },
  );
}

describe("Server middleware", () => {
  it("sees each request before the handler and its result after, the first added outermost", async () => {
    const calls: string[] = [];
    const server = echoServer(calls);
    const tracing =
      (name: string): Middleware =>
      async (request, next) => {
        calls.push(`${name}:before:${request.method}:${String(request.context.requestId)}`);
        const result = await next();
        calls.push(`${name}:after:${String(result.resultType)}`);
        return result;
      };
    server.use(tracing("outer")).use(tracing("inner"));
    const handled = await handle(
      server,
      rpcRequest("tools/call", { name: "t", arguments: { x: 1 } }, { id: "m-1" }),
    );
    expect(resultOf(handled).resultType).toBe("complete");
    expect(calls).toEqual([
      "outer:before:tools/call:m-1",
      "inner:before:tools/call:m-1",
      'handler:{"x":1}',
      "inner:after:complete",
      "outer:after:complete",
    ]);
  });

  it("can replace the params the handler receives", async () => {
    const calls: string[] = [];
    const server = echoServer(calls).use(async (request, next) => {
      request.params = { ...request.params, arguments: { replaced: true } };
      return next();
    });
    const handled = await handle(server, rpcRequest("tools/call", { name: "t", arguments: { original: 1 } }));
    expect(calls).toEqual(['handler:{"replaced":true}']);
    expect(resultOf(handled).content).toEqual([{ type: "text", text: '{"replaced":true}' }]);
  });

  it("has replaced params validated like the original ones", async () => {
    const calls: string[] = [];
    const server = echoServer(calls).use(async (request, next) => {
      request.params = { _meta: request.params._meta };
      return next();
    });
    const handled = await handle(server, rpcRequest("tools/call", { name: "t" }));
    expect(errorOf(handled).code).toBe(-32602);
    expect(calls).toEqual([]);
  });

  it("can change the result on its way out", async () => {
    const server = echoServer([]).use(async (_request, next) => {
      const result = await next();
      return { ...result, content: [{ type: "text", text: "rewritten" }] };
    });
    const handled = await handle(server, rpcRequest("tools/call", { name: "t" }));
    expect(resultOf(handled)).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "rewritten" }],
      _meta: { [META.serverInfo]: { name: "mw", version: "1" } },
    });
  });

  it("answers with the McpError a middleware throws, and the handler never runs", async () => {
    const calls: string[] = [];
    const server = echoServer(calls).use(async () => {
      throw McpError.invalidParams("Invalid or expired requestState", { reason: "invalid_request_state" });
    });
    const handled = await handle(server, rpcRequest("tools/call", { name: "t", requestState: "forged" }));
    expect(errorOf(handled)).toEqual({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
    expect(calls).toEqual([]);
  });

  it("turns any other middleware failure into a bare -32603, even on tools/call", async () => {
    const calls: string[] = [];
    const server = echoServer(calls).use(async () => {
      throw new Error("key ring unavailable: kms://secret-key-id");
    });
    const handled = await handle(server, rpcRequest("tools/call", { name: "t" }));
    expect(errorOf(handled)).toEqual({ code: -32603, message: "Internal error" });
    expect(calls).toEqual([]);
  });

  it("does not run for requests refused before dispatch", async () => {
    const calls: string[] = [];
    const server = echoServer(calls).use(async (request, next) => {
      calls.push(`mw:${request.method}`);
      return next();
    });
    await handle(server, rpcRequest("tools/call", { name: "t" }, { protocolVersion: "2025-06-18" }));
    await handle(server, rpcRequest("prompts/list"));
    await handle(server, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } });
    expect(calls).toEqual([]);
  });
});
