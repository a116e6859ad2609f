import { isValid, redisPerFlow, type TargetRun } from "../run/target-run.js";
import { BASELINE } from "../targets/catalog.js";

export interface TableRow {
  name: string;
  label: string;
  flow: string;
  flowsPerSecond: number | undefined;
  roundsPerSecond: number | undefined;
  p50: number | undefined;
  p99: number | undefined;
  peakRssMiB: number | undefined;
  /** Server CPU time per completed flow, in microseconds: the figure least moved by a busy machine. */
  cpuPerFlowUs: number | undefined;
  /** Share of one core the server used while measured. */
  serverCpuShare: number | undefined;
  /** Share of one core the load driver used while measured. */
  driverCpuShare: number | undefined;
  /** For a target that owns a redis-server: the commands it ran per completed flow. */
  redisPerFlow: number | undefined;
  errors: number | undefined;
  /** 2025-era targets: server memory per idle session, RSS and heap, in KiB. */
  idleRssKiB: number | undefined;
  idleHeapKiB: number | undefined;
  note: string;
}

export const COLUMNS = [
  "target",
  "flow",
  "flows/s",
  "× base",
  "rounds/s",
  "× base",
  "p50 ms",
  "× base",
  "p99 ms",
  "× base",
  "peak RSS MiB",
  "× base",
  "CPU µs/flow",
  "× base",
  "server CPU",
  "driver CPU",
  "Redis cmds/flow",
  "errors",
  "KiB RSS/idle session",
  "KiB heap/idle session",
] as const;

/** A driver this busy was the bottleneck: the row shows what the driver could send, not the server's limit. */
const DRIVER_BOUND_SHARE = 0.9;

function noteFor(run: TargetRun): string {
  if (run.failure) return run.failure;
  if (!run.load) return "no result";
  if (!isValid(run)) return run.load.errorSamples[0] ?? "no flow completed";
  if (run.load.driverCpuSeconds / run.load.seconds >= DRIVER_BOUND_SHARE) {
    return "the load driver used ≥90% of its core: throughput here is the driver's limit, not the server's; compare by CPU µs/flow";
  }
  return "";
}

export function toRows(runs: readonly TargetRun[]): TableRow[] {
  return runs.map((run) => ({
    name: run.name,
    label: run.label,
    flow: run.flow,
    flowsPerSecond: run.load?.flowsPerSecond,
    roundsPerSecond: run.load?.roundsPerSecond,
    p50: run.load?.latency.p50,
    p99: run.load?.latency.p99,
    peakRssMiB: run.peakRssMiB > 0 ? run.peakRssMiB : undefined,
    cpuPerFlowUs:
      run.serverCpuSeconds !== undefined && run.load && run.load.flows > 0
        ? (run.serverCpuSeconds / run.load.flows) * 1e6
        : undefined,
    serverCpuShare:
      run.serverCpuSeconds !== undefined && run.load ? run.serverCpuSeconds / run.load.seconds : undefined,
    driverCpuShare: run.load ? run.load.driverCpuSeconds / run.load.seconds : undefined,
    redisPerFlow: redisPerFlow(run)?.commands,
    errors: run.load?.errors,
    idleRssKiB: run.idle?.rssKiBPerSession,
    idleHeapKiB: run.idle?.heapKiBPerSession,
    note: noteFor(run),
  }));
}

export function num(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);
}

export function ratio(value: number | undefined, base: number | undefined): string {
  if (value === undefined || base === undefined || !Number.isFinite(value) || !(base > 0)) return "–";
  return `${(value / base).toFixed(2)}×`;
}

function share(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "–" : `${(value * 100).toFixed(0)}%`;
}

/** Every cell as text, each metric followed by its ratio to the baseline row (our sealed server). */
export function cells(rows: readonly TableRow[]): string[][] {
  const base = rows.find((row) => row.name === BASELINE);
  return rows.map((row) => [
    row.name,
    row.flow,
    num(row.flowsPerSecond, 0),
    ratio(row.flowsPerSecond, base?.flowsPerSecond),
    num(row.roundsPerSecond, 0),
    ratio(row.roundsPerSecond, base?.roundsPerSecond),
    num(row.p50, 2),
    ratio(row.p50, base?.p50),
    num(row.p99, 2),
    ratio(row.p99, base?.p99),
    num(row.peakRssMiB, 1),
    ratio(row.peakRssMiB, base?.peakRssMiB),
    num(row.cpuPerFlowUs, 0),
    ratio(row.cpuPerFlowUs, base?.cpuPerFlowUs),
    share(row.serverCpuShare),
    share(row.driverCpuShare),
    num(row.redisPerFlow, 1),
    row.errors === undefined ? "failed" : String(row.errors),
    num(row.idleRssKiB, 1),
    num(row.idleHeapKiB, 1),
  ]);
}

/** A fixed-width table for the terminal. */
export function formatTable(rows: readonly TableRow[]): string {
  const body = cells(rows);
  const all = [[...COLUMNS], ...body];
  const widths = COLUMNS.map((_, i) => Math.max(...all.map((line) => (line[i] ?? "").length)));
  const line = (values: readonly string[]): string =>
    values.map((v, i) => (i < 2 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join("  ");
  const notes = rows.filter((row) => row.note).map((row) => `  ${row.name}: ${row.note}`);
  return [line(COLUMNS), ...body.map(line), ...notes].join("\n");
}
