import type { TargetRun } from "../run/target-run.js";
import { num } from "./table.js";

/** One row's stalls in the measured window, as its line in the section and the terminal print. */
export interface StallRow {
  name: string;
  p99Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Share of the window the main thread spent in garbage collection pauses. */
  gcShare: number;
  gcPerSecond: number;
  gcMaxMs: number;
}

export function stallRows(runs: readonly TargetRun[]): StallRow[] {
  return runs.flatMap((run) => {
    const { runtime, load } = run;
    if (!runtime || !load || !(load.seconds > 0)) return [];
    return [
      {
        name: run.name,
        p99Ms: load.latency.p99,
        loopDelayP99Ms: runtime.loopDelayP99Ms,
        loopDelayMaxMs: runtime.loopDelayMaxMs,
        gcShare: runtime.gcTotalMs / 1000 / load.seconds,
        gcPerSecond: runtime.gcCount / load.seconds,
        gcMaxMs: runtime.gcMaxMs,
      },
    ];
  });
}

/** The terminal's short line for one row: what stalled it, beside its p99. */
export function stallLine(row: StallRow): string {
  return (
    `event loop delay p99 ${num(row.loopDelayP99Ms, 2)} ms (max ${num(row.loopDelayMaxMs, 1)}), ` +
    `GC ${num(row.gcPerSecond, 1)}/s, ${num(row.gcShare * 100, 1)}% of the time, longest ${num(row.gcMaxMs, 2)} ms`
  );
}

/** RESULTS.md lines on what stalls each row's server: none unless some row reported it. */
export function stallsSection(runs: readonly TargetRun[]): string[] {
  const rows = stallRows(runs);
  if (rows.length === 0) return [];
  return [
    "## What stalls the servers",
    "",
    "Measured inside each server process over the measured window only: the event loop's delay",
    "(`perf_hooks.monitorEventLoopDelay`, a sample every 5 ms: how late a timer due then ran, the 5 ms",
    "period itself taken off) and V8's garbage collections on the main thread (`PerformanceObserver`",
    "of `gc` entries). A p99 round latency well above the loop's own delay comes from queueing behind",
    "other rounds; a longest GC pause near the p99 says collections put it there.",
    "",
    "| target | p99 round ms | loop delay p99 ms | loop delay max ms | GCs/s | time in GC | longest GC ms |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${num(row.p99Ms, 2)} | ${num(row.loopDelayP99Ms, 2)} | ${num(row.loopDelayMaxMs, 1)} | ${num(row.gcPerSecond, 1)} | ${num(row.gcShare * 100, 1)}% | ${num(row.gcMaxMs, 2)} |`,
    ),
    "",
  ];
}
