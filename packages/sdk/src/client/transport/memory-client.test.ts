import { describe, expect, it } from "vitest";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { Server } from "../../server/index.js";
import { MemoryClientTransport } from "./memory-client.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function call(id: number, args: Record<string, unknown> = {}): JsonRpcRequest {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "t", arguments: args } };
}

describe("MemoryClientTransport", () => {
  it("dispatches to handleRequest and shares no object with the server", async () => {
    const server = new Server({ name: "m", version: "1" });
    const shared = { nested: { value: 1 } };
    server.onCallTool((_ctx, params) => {
      const box = params.arguments?.box as { nested: { value: number } };
      box.nested.value = 2;
      return { content: [{ type: "text", text: "ok" }], structuredContent: shared };
    });
    const transport = new MemoryClientTransport(server);
    const args = { box: { nested: { value: 1 } } };
    const response = await transport.request(call(1, args));
    expect(args.box.nested.value).toBe(1);
    if (!("result" in response)) throw new Error("expected a result");
    (response.result.structuredContent as typeof shared).nested.value = 3;
    expect(shared.nested.value).toBe(1);
  });

  it("aborts the handler's signal when the request is aborted, and forwards its notifications", async () => {
    const server = new Server({ name: "m", version: "1" });
    let sawAbort: () => void = () => {};
    const handlerAborted = new Promise<void>((resolve) => {
      sawAbort = resolve;
    });
    server.onCallTool(async (ctx) => {
      await ctx.notify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: 1 },
      });
      // The client aborts from inside the notification, so the signal may already be aborted here.
      if (!ctx.signal.aborted) {
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
      }
      sawAbort();
      return { content: [] };
    });
    const transport = new MemoryClientTransport(server);
    const notified: string[] = [];
    const controller = new AbortController();
    transport.onNotification = (message) => {
      notified.push(message.method);
      controller.abort(new Error("enough"));
    };
    await expect(transport.request(call(2), { signal: controller.signal })).rejects.toThrow("enough");
    await handlerAborted;
    expect(notified).toEqual(["notifications/message"]);
  });
});
