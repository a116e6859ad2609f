import { describe, expect, it } from "vitest";
import type { AuthChallenge } from "../auth-provider.js";
import { ChallengeBudget } from "./challenge-budget.js";

const resource = new URL("https://mcp.example/mcp");
const refusal = (attempt: number, status: 401 | 403 = 401, at = resource): AuthChallenge => ({
  resource: at,
  status,
  wwwAuthenticate: null,
  attempt,
});

describe("ChallengeBudget", () => {
  it("answers a 401 on the first two attempts only: one renewal, one sign-in", () => {
    const budget = new ChallengeBudget(2);
    expect([1, 2, 3].map((attempt) => budget.admits(refusal(attempt), false))).toEqual([true, true, false]);
  });

  it("counts step-ups per request, starting again at each request's first refusal", () => {
    const budget = new ChallengeBudget(1);
    expect(budget.admits(refusal(1, 403), true)).toBe(true);
    expect(budget.admits(refusal(2, 403), true)).toBe(false);
    expect(budget.admits(refusal(1, 403), true)).toBe(true);
  });

  it("never lets a request go past maxStepUps + 2 attempts", () => {
    const budget = new ChallengeBudget(0);
    expect(budget.admits(refusal(1), false)).toBe(true);
    expect(budget.admits(refusal(2), false)).toBe(true);
    expect(budget.admits(refusal(2, 403), true)).toBe(false);
  });

  it("keeps each endpoint's count apart, and forgets them all on clear", () => {
    const budget = new ChallengeBudget(1);
    const other = new URL("https://other.example/mcp");
    expect(budget.admits(refusal(2, 403), true)).toBe(true);
    expect(budget.admits(refusal(2, 403, other), true)).toBe(true);
    expect(budget.admits(refusal(3, 403), true)).toBe(false);
    budget.clear();
    expect(budget.admits(refusal(3, 403), true)).toBe(true);
  });
});
