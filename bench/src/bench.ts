/**
 * `pnpm bench`: every target in turn, each server in its own process and the load driver in another,
 * with the same driver, tool and payloads for all. Prints the table and the verdicts, and writes
 * bench/RESULTS.md and bench/results/latest.json.
 *
 *   pnpm bench [--quick] [-c 16] [--warmup 3s] [--duration 10s] [--repeat 1]
 *              [--targets roundtrip,official-hmac] [--idle-sessions 500] [--no-pin] [--profile] [--no-write]
 *              [--no-sealing]
 *
 * Before the servers it measures, in this process, the raw AES-256-GCM seal + open and the sealing
 * policy (the subjects of `pnpm bench:sealing`), unless --no-sealing: the sealed server's extra CPU
 * per flow is judged against them.
 *
 * Environment: BENCH_CONCURRENCY, BENCH_WARMUP, BENCH_DURATION, BENCH_REPEAT, BENCH_TARGETS,
 * BENCH_IDLE_SESSIONS.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cliArgs, parseDuration, parsePositive, pick } from "./cli/args.js";
import { canPin, describeMachine, machineLine } from "./proc/machine.js";
import { fleetSection } from "./report/fleet-section.js";
import { evaluateGoals, isSealingGoal } from "./report/goals.js";
import { resultsMarkdown, type Settings } from "./report/markdown.js";
import { sealingSection } from "./report/sealing-cost.js";
import { stallLine, stallRows, stallsSection } from "./report/stalls-section.js";
import { formatTable, toRows } from "./report/table.js";
import { tasksSection } from "./report/tasks-section.js";
import { tracingSection } from "./report/tracing-section.js";
import { measureIdleSessions } from "./run/idle-sessions.js";
import { measureInProcessSealing } from "./run/in-process-sealing.js";
import { measureTarget } from "./run/measure.js";
import { isValid, medianRun, redisPerFlow, type TargetRun } from "./run/target-run.js";
import { TARGETS, type Target, targetNamed } from "./targets/catalog.js";

const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

const { values } = parseArgs({
  args: cliArgs(),
  allowNegative: true,
  options: {
    quick: { type: "boolean", default: false },
    concurrency: { type: "string", short: "c" },
    warmup: { type: "string" },
    duration: { type: "string" },
    repeat: { type: "string" },
    targets: { type: "string" },
    "idle-sessions": { type: "string" },
    pin: { type: "boolean" },
    profile: { type: "boolean", default: false },
    write: { type: "boolean", default: true },
    sealing: { type: "boolean", default: true },
  },
});

const quick = values.quick === true;
const settings: Settings = {
  concurrency: parsePositive(pick(values.concurrency, "BENCH_CONCURRENCY", "16"), "--concurrency"),
  warmupMs: parseDuration(pick(values.warmup, "BENCH_WARMUP", quick ? "1s" : "3s"), "--warmup"),
  durationMs: parseDuration(pick(values.duration, "BENCH_DURATION", quick ? "3s" : "10s"), "--duration"),
  repeat: parsePositive(pick(values.repeat, "BENCH_REPEAT", "1"), "--repeat"),
  pinned: values.pin ?? canPin(),
  quick,
  profiled: values.profile === true,
};
const idleSessions = parsePositive(
  pick(values["idle-sessions"], "BENCH_IDLE_SESSIONS", quick ? "200" : "500"),
  "--idle-sessions",
);
const selected: Target[] =
  (values.targets ?? process.env.BENCH_TARGETS)
    ? String(values.targets ?? process.env.BENCH_TARGETS)
        .split(",")
        .map((name) => targetNamed(name.trim()))
    : [...TARGETS];

const machine = describeMachine();
console.log(`machine: ${machineLine(machine)}`);
console.log(
  `${selected.length} target(s) × ${settings.repeat}, ${settings.concurrency} flows, ${settings.warmupMs / 1000} s warm-up + ${settings.durationMs / 1000} s each${settings.pinned ? ", pinned" : ""}\n`,
);

const sealing = values.sealing ? await measureInProcessSealing(quick) : undefined;
if (sealing) {
  console.log(
    `  in process: raw AES-256-GCM ${sealing.raw.toFixed(1)} µs, envelope ${sealing.envelope.toFixed(1)} µs, ` +
      `RequestStateSecurity ${sealing.full.toFixed(1)} µs per flow (seal + open)\n`,
  );
}

function redisLine(run: TargetRun): string {
  const redis = redisPerFlow(run);
  return redis
    ? `, ${redis.commands.toFixed(1)} Redis commands per flow (${redis.scripts.toFixed(1)} script calls)`
    : "";
}

const runs = new Map<string, TargetRun[]>();
// Repeats go round the whole list, so a burst of noise on the machine hits different targets.
for (let round = 1; round <= settings.repeat; round++) {
  for (const target of selected) {
    process.stdout.write(`  ${target.name.padEnd(24)} `);
    const run = await measureTarget(target, {
      concurrency: settings.concurrency,
      warmupMs: settings.warmupMs,
      durationMs: settings.durationMs,
      pin: settings.pinned,
      ...(settings.profiled ? { profileDir: join(BENCH_DIR, "results", "profiles") } : {}),
    });
    const load = run.load;
    console.log(
      load
        ? `${load.flowsPerSecond.toFixed(0)} flows/s, p99 ${load.latency.p99.toFixed(2)} ms` +
            (load.pollLatency ? ` (tasks/get p99 ${load.pollLatency.p99.toFixed(2)} ms)` : "") +
            `, ${load.errors} errors, peak ${run.peakRssMiB.toFixed(1)} MiB` +
            redisLine(run)
        : `failed: ${run.failure ?? "no result"}`,
    );
    runs.set(target.name, [...(runs.get(target.name) ?? []), run]);
  }
}

const chosen = selected.map((target) => medianRun(runs.get(target.name) ?? []));
// Once per 2025-era target, on a fresh server: the load runs above leave heap that would hide it.
for (const [index, target] of selected.entries()) {
  const run = chosen[index];
  if (!target.idleSessions || !run) continue;
  process.stdout.write(`  ${target.name.padEnd(24)} ${idleSessions} idle sessions: `);
  try {
    run.idle = await measureIdleSessions(target, { count: idleSessions, pin: settings.pinned });
    console.log(
      `${run.idle.rssKiBPerSession.toFixed(1)} KiB RSS, ${run.idle.heapKiBPerSession.toFixed(1)} KiB heap per session`,
    );
  } catch (error) {
    console.log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
const byName = new Map(chosen.map((run) => [run.name, run]));
const rows = toRows(chosen);
const goals = evaluateGoals(byName, settings.concurrency, sealing);

console.log(`\n${formatTable(rows)}\n`);
for (const goal of goals) {
  const cpu = goal.byCpu === "–" ? "" : ` (by server CPU per flow: ${goal.byCpu})`;
  console.log(`  [${goal.status.padEnd(6)}] ${goal.goal}: ${goal.measured}${cpu}`);
}
const stalls = stallRows(chosen);
if (stalls.length > 0) console.log("\nwhat stalls the servers, in the measured window:");
for (const row of stalls) console.log(`  ${row.name.padEnd(24)} ${stallLine(row)}`);

if (values.write) {
  const resultsDir = join(BENCH_DIR, "results");
  mkdirSync(resultsDir, { recursive: true });
  const raw = { machine, settings, sealing, goals, runs: Object.fromEntries(runs), median: chosen };
  writeFileSync(join(resultsDir, "latest.json"), `${JSON.stringify(raw, null, 2)}\n`);
  writeFileSync(
    join(BENCH_DIR, "RESULTS.md"),
    resultsMarkdown(machine, settings, rows, goals, [
      ...sealingSection(byName, sealing, goals.filter(isSealingGoal)),
      ...fleetSection(chosen),
      ...tracingSection(byName),
      ...tasksSection(byName),
      ...stallsSection(chosen),
    ]),
  );
  console.log(`\nwrote ${join(BENCH_DIR, "RESULTS.md")} and ${join(resultsDir, "latest.json")}`);
}

// A target that failed or answered wrongly makes the run fail; a missed goal is a finding, not a failure.
process.exit(chosen.every(isValid) ? 0 : 1);
