import { describe, expect, it } from "vitest";
import { recoveryContext } from "../test-support/failed-attempt.js";
import { StdioClientTransport } from "../transport/stdio-client.js";
import { stdioReopen } from "./stdio-reopen.js";

/** A stdio transport that has restarted `restarts` times, with no process behind it. */
function restarted(restarts: number): StdioClientTransport {
  return Object.create(StdioClientTransport.prototype, { restarts: { value: restarts } });
}

describe("stdioReopen", () => {
  it("does nothing, not even wait a tick, while the stdio server has not restarted", () => {
    const check = stdioReopen();
    expect(check(recoveryContext(restarted(0)), undefined)).toBeUndefined();
    expect(check(recoveryContext(), undefined)).toBeUndefined();
  });

  it("reopens the current session once per restart", async () => {
    const check = stdioReopen();
    const context = recoveryContext(restarted(1));
    await check(context, undefined);
    expect(check(context, undefined)).toBeUndefined();
    expect(context.negotiation.reopen).toHaveBeenCalledTimes(1);
    expect(context.negotiation.reopen).toHaveBeenCalledWith(1);
  });
});
