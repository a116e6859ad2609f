import type { LoadResult } from "../driver/load-result.js";
import { type RedisCommandCounts, scriptCalls, totalCommands } from "../proc/redis-counts.js";
import type { RuntimeStats } from "../targets/runtime-window.js";
import type { IdleSessionCost } from "./idle-sessions.js";

/** One target measured once: the load figures plus the server process's memory. */
export interface TargetRun {
  name: string;
  label: string;
  flow: string;
  load: LoadResult | undefined;
  /** The server's VmHWM, in MiB. */
  peakRssMiB: number;
  /** CPU seconds the server process used during the measured window (all threads). */
  serverCpuSeconds?: number;
  /** Why the run produced no figures, when it failed outright. */
  failure?: string;
  /** For 2025-era targets: what an idle session costs, measured on a fresh server. */
  idle?: IdleSessionCost;
  /** For a target that owns a redis-server: the commands it ran during the measured window, by name. */
  redisCommands?: RedisCommandCounts;
  /** What stalled the server's event loop during the measured window (one server; none for a fleet). */
  runtime?: RuntimeStats;
  /** For a fleet: how many instances `serverCpuSeconds` sums, and the front proxy's own CPU. */
  fleet?: { instances: number; proxyCpuSeconds?: number };
}

/** A run counts only if it measured something and no flow failed: a broken target cannot look fast. */
export function isValid(run: TargetRun): run is TargetRun & { load: LoadResult } {
  return run.load !== undefined && run.load.errors === 0 && run.load.flows > 0;
}

/** Of repeated runs of one target, the one with the median throughput (failed runs sort first). */
export function medianRun(runs: readonly TargetRun[]): TargetRun {
  const sorted = [...runs].sort((a, b) => (a.load?.flowsPerSecond ?? -1) - (b.load?.flowsPerSecond ?? -1));
  const invalid = sorted.find((run) => !isValid(run));
  if (invalid) return invalid;
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error("no runs to pick from");
  return middle;
}

/** Server CPU seconds per completed flow, when the run measured both. */
export function cpuPerFlow(run: TargetRun): number | undefined {
  if (run.serverCpuSeconds === undefined || !run.load || run.load.flows === 0) return undefined;
  return run.serverCpuSeconds / run.load.flows;
}

/** Server CPU seconds per completed round (one HTTP request). */
export function cpuPerRound(run: TargetRun): number | undefined {
  if (run.serverCpuSeconds === undefined || !run.load || run.load.rounds === 0) return undefined;
  return run.serverCpuSeconds / run.load.rounds;
}

/** Redis commands per completed flow (those its scripts ran included), and of them the script calls. */
export function redisPerFlow(run: TargetRun): { commands: number; scripts: number } | undefined {
  if (run.redisCommands === undefined || !run.load || run.load.flows === 0) return undefined;
  const { flows } = run.load;
  return {
    commands: totalCommands(run.redisCommands) / flows,
    scripts: scriptCalls(run.redisCommands) / flows,
  };
}
