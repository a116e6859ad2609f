import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runDriverChild, startServerChild } from "../proc/children.js";
import { cpuSeconds } from "../proc/cpu-time.js";
import { MemorySampler } from "../proc/memory.js";
import type { DriverJob } from "../proc/messages.js";
import type { Target } from "../targets/catalog.js";
import { BENCH_HOST } from "../targets/listen.js";
import type { TargetRun } from "./target-run.js";

export interface MeasureOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Server on CPU 0, driver on CPU 1. */
  pin: boolean;
  /** Where the server writes a V8 CPU profile, when profiling. */
  profileDir?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;
const MAX_ERRORS = 50;
const MEMORY_SAMPLE_MS = 200;
/** Time the driver gets beyond warm-up and measurement: start-up and the last flows' answers. */
const DRIVER_GRACE_MS = 30_000;

/** Starts the target's server, drives it from a separate process, and stops it again. */
export async function measureTarget(target: Target, options: MeasureOptions): Promise<TargetRun> {
  const nodeArgs: string[] = [];
  if (options.profileDir) {
    mkdirSync(options.profileDir, { recursive: true });
    nodeArgs.push(
      "--cpu-prof",
      `--cpu-prof-dir=${join(options.profileDir)}`,
      `--cpu-prof-name=${target.name}.cpuprofile`,
    );
  }
  const server = await startServerChild(target.server, { nodeArgs, ...(options.pin ? { cpu: 0 } : {}) });
  const memory = new MemorySampler(server.pid, MEMORY_SAMPLE_MS);
  const run: TargetRun = {
    name: target.name,
    label: target.label,
    flow: target.flow,
    load: undefined,
    peakRssMiB: 0,
  };
  const job: DriverJob = {
    mode: "closed",
    host: BENCH_HOST,
    port: server.port,
    mix: { [target.flow]: 1 },
    concurrency: options.concurrency,
    warmupMs: options.warmupMs,
    durationMs: options.durationMs,
    timeoutMs: REQUEST_TIMEOUT_MS,
    maxErrors: MAX_ERRORS,
  };
  let cpuAtStart: number | undefined;
  try {
    await runDriverChild(
      job,
      options.warmupMs + options.durationMs + DRIVER_GRACE_MS,
      (message) => {
        if (message.type === "result") run.load = message.result;
        if (message.type === "phase" && message.phase === "measure") cpuAtStart = cpuSeconds(server.pid);
        if (message.type === "phase" && message.phase === "end" && cpuAtStart !== undefined) {
          const cpuAtEnd = cpuSeconds(server.pid);
          if (cpuAtEnd !== undefined) run.serverCpuSeconds = cpuAtEnd - cpuAtStart;
        }
        if (message.type === "failed") run.failure = message.message;
      },
      options.pin ? { cpu: 1 } : {},
    );
  } catch (error) {
    run.failure ??= error instanceof Error ? error.message : String(error);
  } finally {
    memory.stop();
    run.peakRssMiB = memory.peakMiB;
    await server.stop();
  }
  return run;
}
