import { cpuPerFlow, isValid, type TargetRun } from "../run/target-run.js";
import { BASELINE } from "../targets/catalog.js";
import { num, ratio } from "./table.js";

export interface FleetRow {
  name: string;
  instances: number;
  flowsPerSecond: number | undefined;
  perInstance: number | undefined;
  /** Summed over the instances, in µs. */
  cpuPerFlowUs: number | undefined;
  proxyCpuPerFlowUs: number | undefined;
}

export function fleetRow(run: TargetRun & { fleet: NonNullable<TargetRun["fleet"]> }): FleetRow {
  const { instances, proxyCpuSeconds } = run.fleet;
  const ok = isValid(run);
  const flowsPerSecond = ok ? run.load.flowsPerSecond : undefined;
  const cpu = ok ? cpuPerFlow(run) : undefined;
  return {
    name: run.name,
    instances,
    flowsPerSecond,
    perInstance: flowsPerSecond === undefined ? undefined : flowsPerSecond / instances,
    cpuPerFlowUs: cpu === undefined ? undefined : cpu * 1e6,
    proxyCpuPerFlowUs:
      ok && proxyCpuSeconds !== undefined && run.load.flows > 0
        ? (proxyCpuSeconds / run.load.flows) * 1e6
        : undefined,
  };
}

/** RESULTS.md lines for the fleet targets, compared with one baseline instance; none without a fleet row. */
export function fleetSection(runs: readonly TargetRun[]): string[] {
  const fleets = runs.flatMap((run) => (run.fleet ? [fleetRow({ ...run, fleet: run.fleet })] : []));
  if (fleets.length === 0) return [];
  const base = runs.find((run) => run.name === BASELINE);
  const baseFlows = base && isValid(base) ? base.load.flowsPerSecond : undefined;
  const baseCpu = base && isValid(base) ? cpuPerFlow(base) : undefined;
  const baseCpuUs = baseCpu === undefined ? undefined : baseCpu * 1e6;
  return [
    "## Fleet",
    "",
    "Instances of the baseline's McpServer under one sealing key behind nginx round-robin (no sticky",
    "routing: round 2 of a flow mostly lands on another instance than round 1), driven through nginx by",
    "the same driver and flow. Pinned, the instances share the server's CPU and nginx runs beside the",
    "driver, so the instances' CPU summed per flow is what the fleet costs against one instance;",
    "nginx's own CPU per flow is beside it.",
    "",
    "| target | instances | flows/s | × roundtrip | flows/s per instance | CPU µs/flow, all instances | × roundtrip | nginx CPU µs/flow |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...fleets.map(
      (row) =>
        `| ${row.name} | ${row.instances} | ${num(row.flowsPerSecond, 0)} | ${ratio(row.flowsPerSecond, baseFlows)} | ` +
        `${num(row.perInstance, 0)} | ${num(row.cpuPerFlowUs, 0)} | ${ratio(row.cpuPerFlowUs, baseCpuUs)} | ` +
        `${num(row.proxyCpuPerFlowUs, 0)} |`,
    ),
    "",
  ];
}
