import { describe, expect, it } from "vitest";
import { connectionReset, failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { ResponseStreamClosedError } from "../transport/http-errors.js";
import { sessionResend } from "./session-resend.js";

describe("sessionResend", () => {
  it("applies to a reset connection under a request that changes nothing on the server", () => {
    expect(sessionResend.applies(failedAttempt(connectionReset(), { method: "tools/list" }))).toBe(true);
    expect(sessionResend.applies(failedAttempt(connectionReset(), { method: "resources/read" }))).toBe(true);
    expect(sessionResend.applies(failedAttempt(connectionReset(), { method: "tools/call" }))).toBe(false);
    const closed = new ResponseStreamClosedError("tools/list");
    expect(sessionResend.applies(failedAttempt(closed, { method: "tools/list" }))).toBe(false);
  });

  it("shares its one chance with the modern resend", async () => {
    expect(sessionResend.kind).toBe("stream");
    expect(await sessionResend.recover(failedAttempt(connectionReset()), recoveryContext())).toBe(true);
  });
});
