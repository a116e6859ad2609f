import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { HttpStatusError } from "../transport/http-errors.js";
import { eraFallback } from "./era-fallback.js";

const methodNotFound = new McpError(-32601, "Method not found");

describe("eraFallback", () => {
  it("applies to a 2025-era answer to a request sent on the unconfirmed modern guess", () => {
    expect(eraFallback.applies(failedAttempt(methodNotFound, { unconfirmed: true }))).toBe(true);
    expect(eraFallback.applies(failedAttempt(methodNotFound, { unconfirmed: false }))).toBe(false);
    const unavailable = new HttpStatusError(503, "", new Headers(), "", "http://x/");
    expect(eraFallback.applies(failedAttempt(unavailable, { unconfirmed: true }))).toBe(false);
  });

  it("sends again when a session opens, and lets the first error stand when the guess is confirmed", async () => {
    const context = recoveryContext();
    const failed = failedAttempt(methodNotFound, { unconfirmed: true });
    expect(await eraFallback.recover(failed, context)).toBe(true);
    context.negotiation.reconsider.mockResolvedValueOnce(false);
    expect(await eraFallback.recover(failed, context)).toBe(false);
  });
});
