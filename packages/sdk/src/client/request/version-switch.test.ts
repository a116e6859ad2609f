import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { versionSwitch } from "./version-switch.js";

describe("versionSwitch", () => {
  it("applies to -32022 only", () => {
    const unsupported = new McpError(-32022, "Unsupported protocol version", { supported: ["2026-07-28"] });
    expect(versionSwitch.applies(failedAttempt(unsupported))).toBe(true);
    expect(versionSwitch.applies(failedAttempt(new McpError(-32020, "Header mismatch")))).toBe(false);
  });

  it("has the negotiation switch to a version the error names, then sends again", async () => {
    const context = recoveryContext();
    const data = { supported: ["2026-07-28"] };
    const failed = failedAttempt(new McpError(-32022, "Unsupported protocol version", data));
    expect(await versionSwitch.recover(failed, context)).toBe(true);
    expect(context.negotiation.switchVersion).toHaveBeenCalledWith(data);
  });
});
