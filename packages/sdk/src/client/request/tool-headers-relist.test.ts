import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { toolHeadersRelist } from "./tool-headers-relist.js";

const mismatch = new McpError(-32020, "Header mismatch");

describe("toolHeadersRelist", () => {
  it("applies to -32020 on a request that carried Mcp-Param-* headers", () => {
    expect(toolHeadersRelist.applies(failedAttempt(mismatch, { sentParamHeaders: true }))).toBe(true);
    expect(toolHeadersRelist.applies(failedAttempt(mismatch, { sentParamHeaders: false }))).toBe(false);
    const other = new McpError(-32602, "Invalid params");
    expect(toolHeadersRelist.applies(failedAttempt(other, { sentParamHeaders: true }))).toBe(false);
  });

  it("lists tools again under the request's signal, then sends again", async () => {
    const context = recoveryContext();
    const signal = new AbortController().signal;
    const failed = failedAttempt(mismatch, { sentParamHeaders: true, signal });
    expect(await toolHeadersRelist.recover(failed, context)).toBe(true);
    expect(context.relistTools).toHaveBeenCalledWith(signal);
  });
});
