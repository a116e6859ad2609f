import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { connectionReset, failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { ResponseStreamClosedError } from "../transport/http-errors.js";
import { streamResend } from "./stream-resend.js";

describe("streamResend", () => {
  it("applies to a broken response stream and to a reset connection, whatever the method", () => {
    const closed = new ResponseStreamClosedError("tools/call");
    expect(streamResend.applies(failedAttempt(closed, { method: "tools/call" }))).toBe(true);
    expect(streamResend.applies(failedAttempt(connectionReset(), { method: "tools/call" }))).toBe(true);
    expect(streamResend.applies(failedAttempt(new McpError(-32603, "Internal error")))).toBe(false);
  });

  it("sends again with nothing to fix", async () => {
    const context = recoveryContext();
    expect(await streamResend.recover(failedAttempt(connectionReset()), context)).toBe(true);
    expect(context.negotiation.reopen).not.toHaveBeenCalled();
  });
});
