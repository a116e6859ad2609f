import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { fleetSection } from "./fleet-section.js";
import { greetRun } from "./greet-run.js";

/** `flowsPerSecond` over 10 s, the server (or the instances together) busy `cpuSeconds`. */
const run = (name: string, flowsPerSecond: number, cpuSeconds: number, fleet?: TargetRun["fleet"]) =>
  greetRun(name, flowsPerSecond, cpuSeconds, fleet ? { fleet } : {});

describe("the fleet section", () => {
  it("gives total and per-instance flows/s and the instances' summed CPU per flow beside the baseline", () => {
    const lines = fleetSection([
      run("roundtrip", 4000, 10),
      run("roundtrip-fleet", 3000, 9, { instances: 3, proxyCpuSeconds: 1.5 }),
    ]);
    // 30000 flows: 9 s over the instances is 300 µs each (1.20× the baseline's 250), nginx 1.5 s is 50.
    expect(lines).toContain("| roundtrip-fleet | 3 | 3000 | 0.75× | 1000 | 300 | 1.20× | 50 |");
  });

  it("is left out when no fleet ran, and shows dashes for a failed one", () => {
    expect(fleetSection([run("roundtrip", 4000, 10)])).toEqual([]);
    const failed = run("roundtrip-fleet", 3000, 9, { instances: 3 });
    if (failed.load) failed.load.errors = 2;
    expect(fleetSection([failed])).toContain("| roundtrip-fleet | 3 | – | – | – | – | – | – |");
  });
});
