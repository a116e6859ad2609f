import { describe, expect, it } from "vitest";
import { connectionReset, failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { SessionExpiredError } from "../transport/http-errors.js";
import { sessionReopen } from "./session-reopen.js";

describe("sessionReopen", () => {
  it("applies to an expired session only", () => {
    expect(sessionReopen.applies(failedAttempt(new SessionExpiredError("http://x/")))).toBe(true);
    expect(sessionReopen.applies(failedAttempt(connectionReset()))).toBe(false);
  });

  it("reopens the session the request went out on, then sends again", async () => {
    const context = recoveryContext();
    const failed = failedAttempt(new SessionExpiredError("http://x/"), { generation: 3 });
    expect(await sessionReopen.recover(failed, context)).toBe(true);
    expect(context.negotiation.reopen).toHaveBeenCalledWith(3);
  });

  it("gives up with the request's signal", async () => {
    const context = recoveryContext();
    context.negotiation.reopen.mockReturnValueOnce(new Promise(() => {}));
    const failed = failedAttempt(new SessionExpiredError("http://x/"), { signal: AbortSignal.abort() });
    await expect(sessionReopen.recover(failed, context)).rejects.toMatchObject({ name: "AbortError" });
  });
});
