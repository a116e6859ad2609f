import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { evaluateGoals } from "./goals.js";

/** A measured run: `flowsPerSecond` over 10 s, the server busy `cpuSeconds` in that window. */
function run(name: string, flowsPerSecond: number, cpuSeconds: number): TargetRun {
  const flows = flowsPerSecond * 10;
  return {
    name,
    label: name,
    flow: "greet",
    peakRssMiB: 100,
    serverCpuSeconds: cpuSeconds,
    load: {
      flows,
      rounds: flows * 2,
      seconds: 10,
      flowsPerSecond,
      roundsPerSecond: flowsPerSecond * 2,
      latency: { count: flows * 2, mean: 2, p50: 2, p90: 3, p99: 4, max: 9 },
      errors: 0,
      errorSamples: [],
      driverCpuSeconds: 5,
    },
  };
}

const byName = (...runs: TargetRun[]) => new Map(runs.map((r) => [r.name, r]));
const sealingVerdict = (runs: Map<string, TargetRun>) =>
  evaluateGoals(runs, 16).find((goal) => goal.goal.startsWith("sealing costs"));

describe("the sealing-cost goal", () => {
  it("judges the lost share of flows/s and gives the same from CPU per flow", () => {
    const verdict = sealingVerdict(
      byName(run("roundtrip-server-sealed", 4000, 10), run("roundtrip-server-open", 6000, 10)),
    );
    expect(verdict).toMatchObject({ status: "missed", measured: "33.3%", byCpu: "33.3%" });
  });

  it("splits off what the envelope costs without encryption when that target ran", () => {
    const verdict = sealingVerdict(
      byName(
        run("roundtrip-server-sealed", 4000, 10),
        run("roundtrip-server-envelope", 5000, 10),
        run("roundtrip-server-open", 6000, 10),
      ),
    );
    expect(verdict?.measured).toBe("33.3% (envelope without encryption 16.7%)");
    expect(verdict?.byCpu).toBe("33.3% (envelope without encryption 16.7%)");
  });

  it("is met at 10% or less, and not judged when a side is missing", () => {
    const met = sealingVerdict(
      byName(run("roundtrip-server-sealed", 5500, 10), run("roundtrip-server-open", 6000, 10)),
    );
    expect(met?.status).toBe("met");
    expect(sealingVerdict(byName(run("roundtrip-server-open", 6000, 10)))?.status).toBe("n/a");
  });
});
