/**
 * `pnpm soak`: a long run of mixed flows at a fixed rate against one target, reporting errors,
 * latency and the server's RSS per time window. Exits 1 if any flow failed or was shed, or if RSS
 * keeps growing over the second half. Not part of CI: it runs for minutes.
 *
 *   pnpm soak [--duration 5m] [--rate 800 | --share 0.5] [--window 10s] [--warmup 2s] [--target roundtrip]
 *             [--mix greet=60,decline=10,add=20,list=5,tampered=5] [--max-rss-slope 2] [--no-pin]
 *
 * Without --rate, a short closed-loop calibration (--calibrate, default 5s) measures the target's
 * maximum on this machine and the soak runs at --share of it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cliArgs, parseDuration, parsePositive, parseShare, pick } from "./cli/args.js";
import type { LoadResult, WindowStats } from "./driver/load-result.js";
import { type FlowMix, parseMix, SOAK_MIX } from "./driver/mix.js";
import { runDriverChild, startServerChild } from "./proc/children.js";
import { canPin, describeMachine, machineLine } from "./proc/machine.js";
import { MemorySampler } from "./proc/memory.js";
import { judgeSoak } from "./soak/verdict.js";
import { targetNamed } from "./targets/catalog.js";
import { BENCH_HOST } from "./targets/listen.js";

const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));
const REQUEST_TIMEOUT_MS = 10_000;
const GRACE_MS = 30_000;

const { values } = parseArgs({
  args: cliArgs(),
  allowNegative: true,
  options: {
    target: { type: "string" },
    duration: { type: "string" },
    rate: { type: "string" },
    share: { type: "string" },
    window: { type: "string" },
    calibrate: { type: "string" },
    warmup: { type: "string" },
    mix: { type: "string" },
    "max-in-flight": { type: "string" },
    "max-rss-slope": { type: "string" },
    pin: { type: "boolean" },
    write: { type: "boolean", default: true },
  },
});

const target = targetNamed(pick(values.target, "SOAK_TARGET", "roundtrip"));
// The soak watches one server process's RSS; a fleet is three of them behind a proxy.
if (target.fleet) throw new Error(`${target.name} is a fleet; the soak runs against one server process`);
const durationMs = parseDuration(pick(values.duration, "SOAK_DURATION", "5m"), "--duration");
const windowMs = parseDuration(pick(values.window, "SOAK_WINDOW", "10s"), "--window");
const calibrateMs = parseDuration(values.calibrate ?? "5s", "--calibrate");
const warmupMs = parseDuration(values.warmup ?? "2s", "--warmup");
const share = parseShare(pick(values.share, "SOAK_SHARE", "0.5"), "--share");
const maxInFlight = parsePositive(values["max-in-flight"] ?? "256", "--max-in-flight");
const maxSlope = parsePositive(values["max-rss-slope"] ?? "2", "--max-rss-slope");
const pinned = values.pin ?? canPin();
const baseMix: FlowMix = values.mix ? parseMix(values.mix) : SOAK_MIX;
// A server that does not protect requestState has nothing to refuse: its tampered share asks instead.
const mix: FlowMix = target.protectsState
  ? baseMix
  : { ...baseMix, tampered: 0, greet: (baseMix.greet ?? 0) + (baseMix.tampered ?? 0) };

const machine = describeMachine();
console.log(`machine: ${machineLine(machine)}`);
console.log(`soak: ${target.name} (${target.label}) for ${durationMs / 1000} s, mix ${JSON.stringify(mix)}`);

const server = await startServerChild(target.server, pinned ? { cpu: 0 } : {});
const memory = new MemorySampler(server.pid, 1000);
const driverOptions = pinned ? { cpu: 1 } : {};

async function calibrate(): Promise<LoadResult> {
  let result: LoadResult | undefined;
  await runDriverChild(
    {
      mode: "closed",
      host: BENCH_HOST,
      port: server.port,
      mix,
      concurrency: 16,
      warmupMs: 1000,
      durationMs: calibrateMs,
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxErrors: 50,
    },
    calibrateMs + 1000 + GRACE_MS,
    (message) => {
      if (message.type === "result") result = message.result;
    },
    driverOptions,
  );
  if (!result) throw new Error("the calibration run returned no result");
  if (result.errors > 0) throw new Error(`calibration flows failed: ${result.errorSamples.join("; ")}`);
  return result;
}

let rate: number;
let calibration: LoadResult | undefined;
if (values.rate ?? process.env.SOAK_RATE) {
  rate = parsePositive(pick(values.rate, "SOAK_RATE", ""), "--rate");
} else {
  calibration = await calibrate();
  rate = Math.max(1, Math.round(calibration.flowsPerSecond * share));
  console.log(
    `calibration: ${calibration.flowsPerSecond.toFixed(0)} flows/s at 16 concurrent; soaking at ${rate} flows/s (${(share * 100).toFixed(0)}%)`,
  );
}

const windows: WindowStats[] = [];
const openStartS = memory.samples.at(-1)?.t ?? 0;
console.log("\n   t s    flows  errors  shed   p50 ms   p99 ms   max ms   RSS MiB");
try {
  await runDriverChild(
    {
      mode: "open",
      host: BENCH_HOST,
      port: server.port,
      mix,
      rate,
      warmupMs,
      durationMs,
      windowMs,
      maxInFlight,
      timeoutMs: REQUEST_TIMEOUT_MS,
    },
    warmupMs + durationMs + windowMs + GRACE_MS,
    (message) => {
      if (message.type === "failed") console.error(`driver: ${message.message}`);
      if (message.type !== "window") return;
      const w = message.window;
      windows.push(w);
      const rss = memory.sample()?.rssMiB;
      const l = w.latency;
      // The last report holds the flows still running when the schedule ended.
      const when = w.index >= Math.ceil(durationMs / windowMs) ? "tail" : w.endS.toFixed(0);
      console.log(
        `${when.padStart(7)}  ${String(w.flows).padStart(7)}  ${String(w.errors).padStart(6)}  ${String(w.shed).padStart(4)}  ${l.p50.toFixed(2).padStart(7)}  ${l.p99.toFixed(2).padStart(7)}  ${l.max.toFixed(2).padStart(7)}  ${rss === undefined ? "–" : rss.toFixed(1).padStart(8)}`,
      );
      for (const sample of w.errorSamples) console.log(`         ${sample}`);
    },
    driverOptions,
  );
} finally {
  memory.stop();
  await server.stop();
}

const verdict = judgeSoak(windows, memory.samples, openStartS + (warmupMs + durationMs / 2) / 1000, maxSlope);
console.log(
  `\nRSS slope over the second half: ${verdict.rssSlopeMiBPerMin.toFixed(2)} MiB/min (r² ${verdict.rssFitR2.toFixed(2)}, limit ${maxSlope}); peak ${memory.peakMiB.toFixed(1)} MiB`,
);
console.log(verdict.ok ? "soak passed" : `soak FAILED: ${verdict.reasons.join("; ")}`);

if (values.write) {
  const dir = join(BENCH_DIR, "results");
  mkdirSync(dir, { recursive: true });
  const raw = {
    machine,
    target: target.name,
    durationMs,
    windowMs,
    rate,
    share: calibration ? share : undefined,
    calibration,
    mix,
    verdict,
    peakRssMiB: memory.peakMiB,
    windows,
    rss: memory.samples,
  };
  writeFileSync(join(dir, "soak-latest.json"), `${JSON.stringify(raw, null, 2)}\n`);
  console.log(`wrote ${join(dir, "soak-latest.json")}`);
}
process.exit(verdict.ok ? 0 : 1);
