import { describe, expect, it } from "vitest";
import { failedAttempt, recoveryContext } from "../test-support/failed-attempt.js";
import { type Recovery, recoverOnce } from "./recovery.js";

function recovery(kind: string, applies: boolean, answer = true): Recovery {
  return { kind, applies: () => applies, recover: async () => answer };
}

describe("recoverOnce", () => {
  it("runs the first recovery that applies, and its answer stands", async () => {
    const used = new Set<string>();
    const recoveries = [recovery("a", false), recovery("b", true, false), recovery("c", true)];
    expect(await recoverOnce(recoveries, failedAttempt(new Error("x")), recoveryContext(), used)).toBe(false);
    expect([...used]).toEqual(["b"]);
  });

  it("runs each kind once per request, then tries the next that applies", async () => {
    const used = new Set<string>();
    const recoveries = [recovery("a", true), recovery("a", true), recovery("b", true)];
    const failed = failedAttempt(new Error("x"));
    expect(await recoverOnce(recoveries, failed, recoveryContext(), used)).toBe(true);
    expect(await recoverOnce(recoveries, failed, recoveryContext(), used)).toBe(true);
    expect(await recoverOnce(recoveries, failed, recoveryContext(), used)).toBe(false);
    expect([...used]).toEqual(["a", "b"]);
  });
});
