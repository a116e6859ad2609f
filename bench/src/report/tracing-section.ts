import { cpuPerFlow, isValid, type TargetRun } from "../run/target-run.js";
import { BASELINE, TRACED, TRACED_FLOOR } from "../targets/catalog.js";
import { TRACING_MAX_MULTIPLE } from "./goals.js";
import { num, ratio } from "./table.js";

export interface TracingCost {
  offUs: number;
  onUs: number;
  multiple: number;
  /** Over the goal: tracing costs more than the project allows. */
  over: boolean;
  /**
   * The SDK's own work per flow, read on the floor (the traced floor's CPU per flow less the floor's):
   * two spans and two histogram records, with no MCP in them. Undefined unless both floor rows ran.
   */
  sdkFloorUs?: number;
}

const FLOOR = "floor";

/** Server CPU per flow with and without an OpenTelemetry SDK, when both rows of the run are valid. */
export function tracingCost(runs: ReadonlyMap<string, TargetRun>): TracingCost | undefined {
  const off = runs.get(BASELINE);
  const on = runs.get(TRACED);
  if (!off || !on || !isValid(off) || !isValid(on)) return undefined;
  const [offCpu, onCpu] = [cpuPerFlow(off), cpuPerFlow(on)];
  if (offCpu === undefined || onCpu === undefined || !(offCpu > 0)) return undefined;
  const multiple = onCpu / offCpu;
  const cost: TracingCost = {
    offUs: offCpu * 1e6,
    onUs: onCpu * 1e6,
    multiple,
    over: multiple > TRACING_MAX_MULTIPLE,
  };
  const floor = runs.get(FLOOR);
  const tracedFloor = runs.get(TRACED_FLOOR);
  if (floor && tracedFloor && isValid(floor) && isValid(tracedFloor)) {
    const [bare, traced] = [cpuPerFlow(floor), cpuPerFlow(tracedFloor)];
    if (bare !== undefined && traced !== undefined) cost.sdkFloorUs = (traced - bare) * 1e6;
  }
  return cost;
}

/** The lines that split tracing's cost into the SDK's own floor and what Roundtrip adds on top. */
function sdkFloorLines(cost: TracingCost): string[] {
  if (cost.sdkFloorUs === undefined) return [];
  const extra = cost.onUs - cost.offUs;
  const allowed = (TRACING_MAX_MULTIPLE - 1) * cost.offUs;
  const sdk = cost.sdkFloorUs;
  return [
    `Of the ${num(extra, 0)} µs tracing adds per flow, the SDK's own work is about ${num(sdk, 0)} µs: \`${TRACED_FLOOR}\``,
    `less \`${FLOOR}\`, the same two requests per flow with one span and one duration record each and no MCP`,
    `in them. Roundtrip's own share is the rest, about ${num(extra - sdk, 0)} µs. The goal allows ${num(allowed, 0)} µs per flow`,
    sdk > allowed
      ? "in all, less than the SDK alone takes on the floor: with this SDK setup, no instrumentation of this flow can meet it."
      : "in all, more than the SDK alone takes on the floor.",
    "",
  ];
}

/** RESULTS.md lines on what tracing costs the baseline; none unless both rows ran. */
export function tracingSection(runs: ReadonlyMap<string, TargetRun>): string[] {
  const cost = tracingCost(runs);
  const off = runs.get(BASELINE);
  const on = runs.get(TRACED);
  if (!cost || !off?.load || !on?.load) return [];
  const flag = cost.over
    ? `**Over the goal:** tracing on costs ${cost.multiple.toFixed(2)}× the server CPU per flow of tracing off (goal ≤ ${TRACING_MAX_MULTIPLE}×).`
    : `Within the goal: tracing on costs ${cost.multiple.toFixed(2)}× the server CPU per flow of tracing off (goal ≤ ${TRACING_MAX_MULTIPLE}×).`;
  return [
    "## Tracing on and off",
    "",
    `\`${BASELINE}\` has no OpenTelemetry SDK registered (the API's no-op: Roundtrip records nothing);`,
    `\`${TRACED}\` is the same McpServer and greet flow with the SDK registered as an application does: W3C`,
    "propagators, a TracerProvider with a BatchSpanProcessor, a MeterProvider with a periodic reader (every",
    "second), their exporters dropping what they get. The ratio is of server CPU per flow, same run.",
    "",
    "| tracing | target | CPU µs/flow | flows/s | p99 ms |",
    "| --- | --- | ---: | ---: | ---: |",
    `| off | ${BASELINE} | ${num(cost.offUs, 0)} | ${num(off.load.flowsPerSecond, 0)} | ${num(off.load.latency.p99, 2)} |`,
    `| on | ${TRACED} | ${num(cost.onUs, 0)} | ${num(on.load.flowsPerSecond, 0)} | ${num(on.load.latency.p99, 2)} |`,
    `| on ÷ off | | ${ratio(cost.onUs, cost.offUs)} | ${ratio(on.load.flowsPerSecond, off.load.flowsPerSecond)} | ${ratio(on.load.latency.p99, off.load.latency.p99)} |`,
    "",
    flag,
    "",
    ...sdkFloorLines(cost),
  ];
}
