import { cpuPerFlow, cpuPerRound, isValid, type TargetRun } from "../run/target-run.js";
import { BASELINE } from "../targets/catalog.js";

export interface GoalVerdict {
  goal: string;
  status: "met" | "missed" | "n/a";
  /** The figure the goal is judged on (throughput or latency, as the goal is worded). */
  measured: string;
  /**
   * The same ratio computed from server CPU time per flow instead of throughput: what it would be
   * if every server had a whole core to itself. On a busy machine this is the steadier reading.
   */
  byCpu: string;
}

type Valid = TargetRun & { load: NonNullable<TargetRun["load"]> };

function valid(runs: ReadonlyMap<string, TargetRun>, name: string): Valid | undefined {
  const run = runs.get(name);
  return run && isValid(run) ? run : undefined;
}

function status(ok: boolean | undefined): GoalVerdict["status"] {
  return ok === undefined ? "n/a" : ok ? "met" : "missed";
}

function quotient(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || !(b > 0) ? undefined : a / b;
}

const MISSING = "not measured (target absent or failed)";
const FIVE_TIMES = "sealed Roundtrip ≥ 5× official SDK flows/s (same tool, HMAC codec)";
const FLOOR_SHARE = "sealed Roundtrip rounds/s ≥ 30% of the floor's requests/s";
const LATENCY = "sealed Roundtrip p99 round latency < 5 ms at 16 concurrent flows";
const SEALING = "sealing costs ≤ 10% of flows/s (low-level Server with vs without the boundary)";

function fiveTimes(
  ours: Valid | undefined,
  official: Valid | undefined,
  officialOpen: Valid | undefined,
): GoalVerdict {
  if (!ours || !official) return { goal: FIVE_TIMES, status: "n/a", measured: MISSING, byCpu: "–" };
  const ratio = ours.load.flowsPerSecond / official.load.flowsPerSecond;
  const versusOpen = officialOpen
    ? `; ${(ours.load.flowsPerSecond / officialOpen.load.flowsPerSecond).toFixed(2)}× its unprotected default`
    : "";
  const cpu = quotient(cpuPerFlow(official), cpuPerFlow(ours));
  return {
    goal: FIVE_TIMES,
    status: status(ratio >= 5),
    measured: `${ratio.toFixed(2)}×${versusOpen}`,
    byCpu: cpu === undefined ? "–" : `${cpu.toFixed(2)}×`,
  };
}

function floorShare(ours: Valid | undefined, floor: Valid | undefined): GoalVerdict {
  if (!ours || !floor) return { goal: FLOOR_SHARE, status: "n/a", measured: MISSING, byCpu: "–" };
  const share = ours.load.roundsPerSecond / floor.load.roundsPerSecond;
  const cpu = quotient(cpuPerRound(floor), cpuPerRound(ours));
  return {
    goal: FLOOR_SHARE,
    status: status(share >= 0.3),
    measured: `${(share * 100).toFixed(1)}%`,
    byCpu: cpu === undefined ? "–" : `${(cpu * 100).toFixed(1)}%`,
  };
}

function latency(ours: Valid | undefined, concurrency: number): GoalVerdict {
  if (!ours) return { goal: LATENCY, status: "n/a", measured: MISSING, byCpu: "–" };
  const note = concurrency === 16 ? "" : ` (measured at ${concurrency} flows, not 16)`;
  return {
    goal: LATENCY,
    status: status(concurrency === 16 ? ours.load.latency.p99 < 5 : undefined),
    measured: `${ours.load.latency.p99.toFixed(2)} ms${note}`,
    byCpu: "–",
  };
}

/** What `than` costs against `open`: the share of flows/s lost, and the same from CPU per flow. */
function costOf(than: Valid, open: Valid): { throughput: number; cpu: number | undefined } {
  const cpu = quotient(cpuPerFlow(open), cpuPerFlow(than));
  return {
    throughput: 1 - than.load.flowsPerSecond / open.load.flowsPerSecond,
    cpu: cpu === undefined ? undefined : 1 - cpu,
  };
}

const percent = (share: number | undefined): string =>
  share === undefined ? "–" : `${(share * 100).toFixed(1)}%`;

/**
 * Sealing's cost, with the envelope alone (the boundary over a codec that encrypts nothing) beside
 * it when that target ran: the rest is the AES-256-GCM cipher.
 */
function sealingCost(
  sealed: Valid | undefined,
  open: Valid | undefined,
  envelope: Valid | undefined,
): GoalVerdict {
  if (!sealed || !open) return { goal: SEALING, status: "n/a", measured: MISSING, byCpu: "–" };
  const cost = costOf(sealed, open);
  const part = envelope ? costOf(envelope, open) : undefined;
  const split = (total: number | undefined, envelopeShare: number | undefined): string =>
    part ? `${percent(total)} (envelope without encryption ${percent(envelopeShare)})` : percent(total);
  return {
    goal: SEALING,
    status: status(cost.throughput <= 0.1),
    measured: split(cost.throughput, part?.throughput),
    byCpu: split(cost.cpu, part?.cpu),
  };
}

/** The four targets, judged on the median runs. */
export function evaluateGoals(runs: ReadonlyMap<string, TargetRun>, concurrency: number): GoalVerdict[] {
  const ours = valid(runs, BASELINE);
  return [
    fiveTimes(ours, valid(runs, "official-hmac"), valid(runs, "official-open")),
    floorShare(ours, valid(runs, "floor")),
    latency(ours, concurrency),
    sealingCost(
      valid(runs, "roundtrip-server-sealed"),
      valid(runs, "roundtrip-server-open"),
      valid(runs, "roundtrip-server-envelope"),
    ),
  ];
}
