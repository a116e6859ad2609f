import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { BASELINE, TRACED, TRACED_FLOOR } from "../targets/catalog.js";
import { evaluateGoals } from "./goals.js";
import { greetRun } from "./greet-run.js";
import { tracingCost, tracingSection } from "./tracing-section.js";

/** 1000 greet flows in 10 s, the server busy `cpuSeconds` of them. */
const run = (name: string, cpuSeconds: number) => greetRun(name, 100, cpuSeconds);

const byName = (...runs: TargetRun[]) => new Map(runs.map((r) => [r.name, r]));
const tracingGoal = (runs: Map<string, TargetRun>) =>
  evaluateGoals(runs, 16).find((goal) => goal.goal.startsWith("tracing on"));

describe("the tracing section", () => {
  it("gives CPU per flow on and off and their ratio", () => {
    const cost = tracingCost(byName(run(BASELINE, 0.1), run(TRACED, 0.11)));
    expect(cost?.offUs).toBeCloseTo(100);
    expect(cost?.onUs).toBeCloseTo(110);
    expect(cost?.multiple).toBeCloseTo(1.1);
    expect(cost?.over).toBe(false);
  });

  it("flags tracing that costs more than 1.15× and misses the goal", () => {
    const runs = byName(run(BASELINE, 0.1), run(TRACED, 0.12));
    expect(tracingCost(runs)?.over).toBe(true);
    expect(tracingSection(runs).join("\n")).toContain("**Over the goal:** tracing on costs 1.20×");
    expect(tracingGoal(runs)?.status).toBe("missed");
  });

  it("meets the goal within 1.15×", () => {
    const runs = byName(run(BASELINE, 0.1), run(TRACED, 0.115));
    expect(tracingSection(runs).join("\n")).toContain("Within the goal");
    expect(tracingGoal(runs)?.status).toBe("met");
  });

  it("splits the extra cost into the SDK's own, read on the floor, and Roundtrip's", () => {
    // Off 100 µs, on 180 µs; the floor 40 µs, traced 70 µs: the SDK takes 30 of the 80 added.
    const runs = byName(run(BASELINE, 0.1), run(TRACED, 0.18), run("floor", 0.04), run(TRACED_FLOOR, 0.07));
    expect(tracingCost(runs)?.sdkFloorUs).toBeCloseTo(30);
    const text = tracingSection(runs).join("\n");
    expect(text).toContain("the SDK's own work is about 30 µs");
    expect(text).toContain("Roundtrip's own share is the rest, about 50 µs");
    expect(text).toContain("The goal allows 15 µs per flow");
    expect(text).toContain("no instrumentation of this flow can meet it");
  });

  it("says nothing of the SDK's floor without both floor rows", () => {
    const runs = byName(run(BASELINE, 0.1), run(TRACED, 0.18), run("floor", 0.04));
    expect(tracingCost(runs)?.sdkFloorUs).toBeUndefined();
    expect(tracingSection(runs).join("\n")).not.toContain("SDK's own work");
  });

  it("is absent, and the goal not judged, without both rows", () => {
    const runs = byName(run(BASELINE, 0.1));
    expect(tracingSection(runs)).toEqual([]);
    expect(tracingGoal(runs)?.status).toBe("n/a");
  });
});
