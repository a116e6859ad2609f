import { describe, expect, it } from "vitest";
import { recordingContext } from "../../test-support/request-context.js";
import { inputContext, mcpContext, resourceContext } from "./context.js";

function request() {
  return recordingContext({ progressToken: 3, logLevel: "info" }, { requestId: "r1" });
}

describe("McpServer handler contexts", () => {
  it("carry the request's facts and the round's state, with `signal` on the prototype", () => {
    const { context } = request();
    const ctx = inputContext(context, { requestState: "s1", inputResponses: { a: { action: "decline" } } });
    expect(ctx).toMatchObject({
      requestId: "r1",
      requestState: "s1",
      inputResponses: { a: { action: "decline" } },
    });
    expect(ctx.request).toBe(context);
    expect(Object.getOwnPropertyDescriptor(ctx, "signal")).toBeUndefined();
    expect(resourceContext(context, "file:///a").uri).toBe("file:///a");
    expect(mcpContext(context).protocolVersion).toBe(context.protocolVersion);
  });

  it("hand on progress and log, destructured or not, and the abort", async () => {
    const { context, sent, abort } = request();
    const { sendProgress, log } = mcpContext(context);
    await sendProgress(1, 2);
    await log("warning", "careful");
    expect(sent.map((m) => m.method)).toEqual(["notifications/progress", "notifications/message"]);
    const ctx = mcpContext(context);
    abort.abort();
    expect(ctx.signal.aborted).toBe(true);
  });
});
