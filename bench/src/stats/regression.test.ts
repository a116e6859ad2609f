import { describe, expect, it } from "vitest";
import { linearFit } from "./regression.js";

describe("least-squares line", () => {
  it("recovers slope and intercept of an exact line", () => {
    const fit = linearFit([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })));
    expect(fit.slope).toBeCloseTo(2);
    expect(fit.intercept).toBeCloseTo(1);
    expect(fit.r2).toBeCloseTo(1);
  });

  it("finds no growth in a flat series and tolerates too few points", () => {
    expect(linearFit([1, 2, 3].map((x) => ({ x, y: 5 }))).slope).toBe(0);
    expect(linearFit([{ x: 1, y: 3 }])).toEqual({ slope: 0, intercept: 3, r2: 0 });
  });
});
