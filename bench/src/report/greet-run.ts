import type { TargetRun } from "../run/target-run.js";

/**
 * For the report's tests: a valid greet run of `flowsPerSecond` over a 10 s window (two rounds a
 * flow, p99 4 ms), the server (or a fleet's instances together) busy `cpuSeconds` of it; `extra`
 * replaces any field.
 */
export function greetRun(
  name: string,
  flowsPerSecond: number,
  cpuSeconds: number,
  extra: Partial<TargetRun> = {},
): TargetRun {
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
    ...extra,
  };
}
