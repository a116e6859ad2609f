import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { evaluateGoals } from "./goals.js";
import { greetRun } from "./greet-run.js";
import { stallLine, stallRows, stallsSection } from "./stalls-section.js";

/** 10 s measured, p99 4 ms; `runtime` as the server reported it. */
const run = (name: string, runtime?: TargetRun["runtime"]): TargetRun =>
  greetRun(name, 100, 5, runtime ? { runtime } : {});

const stalled = { loopDelayP99Ms: 1.25, loopDelayMaxMs: 7.5, gcCount: 120, gcTotalMs: 250, gcMaxMs: 3.5 };

describe("what stalls the servers", () => {
  it("gives each reporting row its loop delay, GCs per second, time in GC and longest pause", () => {
    const [row] = stallRows([run("roundtrip", stalled), run("fleet")]);
    expect(row).toEqual({
      name: "roundtrip",
      p99Ms: 4,
      loopDelayP99Ms: 1.25,
      loopDelayMaxMs: 7.5,
      gcShare: 0.025,
      gcPerSecond: 12,
      gcMaxMs: 3.5,
    });
    expect(row && stallLine(row)).toBe(
      "event loop delay p99 1.25 ms (max 7.5), GC 12.0/s, 2.5% of the time, longest 3.50 ms",
    );
    const section = stallsSection([run("roundtrip", stalled), run("fleet")]).join("\n");
    expect(section).toContain("| roundtrip | 4.00 | 1.25 | 7.5 | 12.0 | 2.5% | 3.50 |");
    expect(section).not.toContain("| fleet |");
  });

  it("is absent when no row reported, and the latency goal names the baseline's stalls", () => {
    expect(stallsSection([run("roundtrip")])).toEqual([]);
    const goal = evaluateGoals(new Map([["roundtrip", run("roundtrip", stalled)]]), 16).find((verdict) =>
      verdict.goal.includes("p99"),
    );
    expect(goal?.measured).toBe("4.00 ms; event loop delay p99 1.25 ms, longest GC 3.50 ms");
  });
});
