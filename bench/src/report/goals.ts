import { cpuPerFlow, cpuPerRound, isValid, redisPerFlow, type TargetRun } from "../run/target-run.js";
import { BASELINE, ONCE, ONCE_REDIS, TRACED } from "../targets/catalog.js";
import { type InProcessSealing, serverSealingCost } from "./sealing-cost.js";

export interface GoalVerdict {
  goal: string;
  status: "met" | "missed" | "n/a";
  /** The figure the goal is judged on (throughput, latency, memory or CPU, as the goal is worded). */
  measured: string;
  /**
   * The same ratio computed from server CPU time per flow instead of throughput: what it would be
   * if every server had a whole core to itself. On a busy machine this is the steadier reading.
   */
  byCpu: string;
}

/** Sealing's extra server CPU per flow may be at most this many µs ... */
export const SEALING_MAX_EXTRA_MICROS = 40;
/** ... and at most this multiple of the raw AEAD seal + open measured in the same run. */
export const SEALING_MAX_RAW_MULTIPLE = 3;
/** With an OpenTelemetry SDK registered, server CPU per flow may be at most this multiple of none. */
export const TRACING_MAX_MULTIPLE = 1.15;
export const OFFICIAL_MIN_MULTIPLE = 6;
export const FLOOR_MIN_SHARE = 0.45;
export const P99_MAX_MS = 3;
export const FASTIFY_MIN_SHARE = 0.95;
/**
 * The baseline's peak RSS, in every run. The floor's peak of the same run is shown beside it: it is
 * what Node and Fastify alone take on this machine's Node line, which no server built on them goes under.
 */
export const BASELINE_MAX_PEAK_RSS_MIB = 100;
/** Sealed McpServer CPU per flow against the sealed low-level Server's: what the high-level layer may add. */
export const MCP_SERVER_MAX_MULTIPLE = 1.15;
/** The once-tool with its ledger in Redis against the same tool with no ledger, server CPU per flow. */
export const ONCE_REDIS_MAX_MULTIPLE = 1.25;

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
const notMeasured = (goal: string): GoalVerdict => ({ goal, status: "n/a", measured: MISSING, byCpu: "–" });
const times = (value: number | undefined): string => (value === undefined ? "–" : `${value.toFixed(2)}×`);
const percent = (share: number | undefined): string =>
  share === undefined ? "–" : `${(share * 100).toFixed(1)}%`;

const OFFICIAL = `sealed Roundtrip ≥ ${OFFICIAL_MIN_MULTIPLE}× official SDK flows/s (same tool, HMAC codec)`;
const FLOOR = `sealed Roundtrip rounds/s ≥ ${FLOOR_MIN_SHARE * 100}% of the floor's requests/s`;
const LATENCY = `sealed Roundtrip p99 round latency ≤ ${P99_MAX_MS} ms at 16 concurrent flows`;
const FASTIFY = `mcpFastify ≥ ${FASTIFY_MIN_SHARE * 100}% of createNodeHandler flows/s (same McpServer)`;
const PEAK_RSS = `baseline peak RSS ≤ ${BASELINE_MAX_PEAK_RSS_MIB} MiB`;
const MCP_SERVER = `sealed McpServer ≤ ${MCP_SERVER_MAX_MULTIPLE}× the sealed low-level Server, server CPU per flow`;
const TRACING = `tracing on ≤ ${TRACING_MAX_MULTIPLE}× tracing off, server CPU per flow (same McpServer, same run)`;
const SEALING_MICROS = `sealing's extra server CPU per flow ≤ ${SEALING_MAX_EXTRA_MICROS} µs (low-level Server sealed − open)`;
const SEALING_MULTIPLE = `sealing's extra server CPU per flow ≤ ${SEALING_MAX_RAW_MULTIPLE}× raw AES-256-GCM seal + open (same run)`;
const ONCE_LEDGER = `once-tool with its ledger in Redis ≤ ${ONCE_REDIS_MAX_MULTIPLE}× the same tool without a ledger, server CPU per flow`;

function officialMultiple(
  ours: Valid | undefined,
  official: Valid | undefined,
  officialOpen: Valid | undefined,
): GoalVerdict {
  if (!ours || !official) return notMeasured(OFFICIAL);
  const ratio = ours.load.flowsPerSecond / official.load.flowsPerSecond;
  const versusOpen = officialOpen
    ? `; ${(ours.load.flowsPerSecond / officialOpen.load.flowsPerSecond).toFixed(2)}× its unprotected default`
    : "";
  return {
    goal: OFFICIAL,
    status: status(ratio >= OFFICIAL_MIN_MULTIPLE),
    measured: `${ratio.toFixed(2)}×${versusOpen}`,
    byCpu: times(quotient(cpuPerFlow(official), cpuPerFlow(ours))),
  };
}

function floorShare(ours: Valid | undefined, floor: Valid | undefined): GoalVerdict {
  if (!ours || !floor) return notMeasured(FLOOR);
  const share = ours.load.roundsPerSecond / floor.load.roundsPerSecond;
  return {
    goal: FLOOR,
    status: status(share >= FLOOR_MIN_SHARE),
    measured: percent(share),
    byCpu: percent(quotient(cpuPerRound(floor), cpuPerRound(ours))),
  };
}

function latency(ours: Valid | undefined, concurrency: number): GoalVerdict {
  if (!ours) return notMeasured(LATENCY);
  const note = concurrency === 16 ? "" : ` (measured at ${concurrency} flows, not 16)`;
  // What stalled the server in the window, where its p99 is read against it.
  const stalls = ours.runtime
    ? `; event loop delay p99 ${ours.runtime.loopDelayP99Ms.toFixed(2)} ms, longest GC ${ours.runtime.gcMaxMs.toFixed(2)} ms`
    : "";
  return {
    goal: LATENCY,
    status: status(concurrency === 16 ? ours.load.latency.p99 <= P99_MAX_MS : undefined),
    measured: `${ours.load.latency.p99.toFixed(2)} ms${note}${stalls}`,
    byCpu: "–",
  };
}

function fastifyShare(node: Valid | undefined, fastify: Valid | undefined): GoalVerdict {
  if (!node || !fastify) return notMeasured(FASTIFY);
  const share = fastify.load.flowsPerSecond / node.load.flowsPerSecond;
  return {
    goal: FASTIFY,
    status: status(share >= FASTIFY_MIN_SHARE),
    measured: percent(share),
    byCpu: percent(quotient(cpuPerFlow(node), cpuPerFlow(fastify))),
  };
}

function peakRss(ours: Valid | undefined, floor: Valid | undefined): GoalVerdict {
  if (!ours || !(ours.peakRssMiB > 0)) return notMeasured(PEAK_RSS);
  const floorPeak = floor && floor.peakRssMiB > 0 ? ` (the floor: ${floor.peakRssMiB.toFixed(1)} MiB)` : "";
  return {
    goal: PEAK_RSS,
    status: status(ours.peakRssMiB <= BASELINE_MAX_PEAK_RSS_MIB),
    measured: `${ours.peakRssMiB.toFixed(1)} MiB${floorPeak}`,
    byCpu: "–",
  };
}

function mcpServerMultiple(ours: Valid | undefined, lowLevel: Valid | undefined): GoalVerdict {
  const multiple = quotient(ours && cpuPerFlow(ours), lowLevel && cpuPerFlow(lowLevel));
  if (multiple === undefined) return notMeasured(MCP_SERVER);
  return {
    goal: MCP_SERVER,
    status: status(multiple <= MCP_SERVER_MAX_MULTIPLE),
    measured: times(multiple),
    byCpu: "–",
  };
}

/** Worded in server CPU per flow, the reading a busy machine moves least, so `measured` is it. */
function tracingMultiple(off: Valid | undefined, on: Valid | undefined): GoalVerdict {
  const multiple = quotient(on && cpuPerFlow(on), off && cpuPerFlow(off));
  if (multiple === undefined) return notMeasured(TRACING);
  return {
    goal: TRACING,
    status: status(multiple <= TRACING_MAX_MULTIPLE),
    measured: times(multiple),
    byCpu: "–",
  };
}

/** Both sealing goals are worded in server CPU per flow, so `measured` is already the CPU reading. */
function sealingMicros(runs: ReadonlyMap<string, TargetRun>): GoalVerdict {
  const cost = serverSealingCost(runs);
  if (!cost) return notMeasured(SEALING_MICROS);
  const envelope =
    cost.envelope === undefined ? "" : ` (envelope without encryption ${cost.envelope.toFixed(1)} µs)`;
  return {
    goal: SEALING_MICROS,
    status: status(cost.sealed <= SEALING_MAX_EXTRA_MICROS),
    measured: `${cost.sealed.toFixed(1)} µs${envelope}`,
    byCpu: "–",
  };
}

function sealingMultiple(
  runs: ReadonlyMap<string, TargetRun>,
  micro: InProcessSealing | undefined,
): GoalVerdict {
  const cost = serverSealingCost(runs);
  if (!cost || !micro || !(micro.raw > 0)) {
    return {
      goal: SEALING_MULTIPLE,
      status: "n/a",
      measured: cost ? "raw AEAD not measured" : MISSING,
      byCpu: "–",
    };
  }
  const multiple = cost.sealed / micro.raw;
  return {
    goal: SEALING_MULTIPLE,
    status: status(multiple <= SEALING_MAX_RAW_MULTIPLE),
    measured: `${multiple.toFixed(2)}× (${cost.sealed.toFixed(1)} µs over ${micro.raw.toFixed(1)} µs raw)`,
    byCpu: "–",
  };
}

/**
 * Judged in server CPU per flow against the baseline (the same greet, no ledger); beside it the
 * in-process ledger's multiple, and the Redis commands per flow when the target counted them.
 */
function onceLedger(
  plain: Valid | undefined,
  inProcess: Valid | undefined,
  inRedis: Valid | undefined,
): GoalVerdict {
  const multiple = quotient(inRedis && cpuPerFlow(inRedis), plain && cpuPerFlow(plain));
  if (!inRedis || multiple === undefined) return notMeasured(ONCE_LEDGER);
  const memory = quotient(inProcess && cpuPerFlow(inProcess), plain && cpuPerFlow(plain));
  const redis = redisPerFlow(inRedis);
  const notes = [
    ...(memory === undefined ? [] : [`in-process ledger ${times(memory)}`]),
    ...(redis
      ? [
          `${redis.commands.toFixed(1)} Redis commands per flow (${redis.scripts.toFixed(1)} of them script calls)`,
        ]
      : []),
  ];
  return {
    goal: ONCE_LEDGER,
    status: status(multiple <= ONCE_REDIS_MAX_MULTIPLE),
    measured: `${times(multiple)}${notes.length > 0 ? `; ${notes.join("; ")}` : ""}`,
    byCpu: "–",
  };
}

/** The two goals on sealing's cost, which the sealing section of RESULTS.md repeats under its figures. */
export function isSealingGoal(verdict: GoalVerdict): boolean {
  return verdict.goal === SEALING_MICROS || verdict.goal === SEALING_MULTIPLE;
}

/**
 * The targets, judged on the median runs; `micro` is the in-process sealing measurement of the same
 * run (absent when it was skipped, which leaves the multiple of the raw AEAD unjudged).
 */
export function evaluateGoals(
  runs: ReadonlyMap<string, TargetRun>,
  concurrency: number,
  micro?: InProcessSealing,
): GoalVerdict[] {
  const ours = valid(runs, BASELINE);
  return [
    officialMultiple(ours, valid(runs, "official-hmac"), valid(runs, "official-open")),
    floorShare(ours, valid(runs, "floor")),
    latency(ours, concurrency),
    peakRss(ours, valid(runs, "floor")),
    mcpServerMultiple(ours, valid(runs, "roundtrip-server-sealed")),
    fastifyShare(ours, valid(runs, "roundtrip-fastify")),
    tracingMultiple(ours, valid(runs, TRACED)),
    sealingMicros(runs),
    sealingMultiple(runs, micro),
    onceLedger(ours, valid(runs, ONCE), valid(runs, ONCE_REDIS)),
  ];
}
