import { describe, expect, it } from "vitest";
import type { EnvelopeOptions } from "../test-support/messages.js";
import { recordingContext } from "../test-support/request-context.js";

function contextWith(options: EnvelopeOptions) {
  return recordingContext(options, { requestId: 7 });
}

describe("request context", () => {
  it("keeps `signal` off the instance, so a context never holds an accessor of its own", () => {
    const { context } = contextWith({});
    expect(Object.getOwnPropertyDescriptor(context, "signal")).toBeUndefined();
    expect(Object.keys(context)).not.toContain("signal");
  });

  it("makes the AbortSignal on first read, already aborted when the request was", () => {
    const { context, abort } = contextWith({});
    abort.abort("gone");
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toBe("gone");
  });

  it("sends progress only when the request carried a progressToken", async () => {
    const without = contextWith({});
    await without.context.sendProgress(1, 2);
    expect(without.sent).toEqual([]);
    const withToken = contextWith({ progressToken: "p1" });
    await withToken.context.sendProgress(1, 2, "half");
    expect(withToken.sent).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p1", progress: 1, total: 2, message: "half" },
      },
    ]);
  });

  it("sends log messages at the requested level or above, and none when no level was asked", async () => {
    const silent = contextWith({});
    await silent.context.log("error", "x");
    expect(silent.sent).toEqual([]);
    const { context, sent } = contextWith({ logLevel: "warning" });
    await context.log("info", "quiet");
    await context.log("error", { detail: 1 }, "db");
    expect(sent.map((m) => m.params)).toEqual([{ level: "error", data: { detail: 1 }, logger: "db" }]);
  });

  it("lets a handler destructure its methods", async () => {
    const { context, sent } = contextWith({ progressToken: "p", logLevel: "debug" });
    const { sendProgress, log, notify } = context;
    await sendProgress(1);
    await log("info", "x");
    await notify({ jsonrpc: "2.0", method: "notifications/custom" });
    expect(sent.map((m) => m.method)).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/custom",
    ]);
  });

  it("sends nothing once the request was aborted", async () => {
    const { context, sent, abort } = contextWith({ progressToken: 1 });
    abort.abort();
    await context.sendProgress(1);
    await context.notify({ jsonrpc: "2.0", method: "notifications/message", params: {} });
    expect(sent).toEqual([]);
  });
});
