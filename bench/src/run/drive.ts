import { runDriverChild } from "../proc/children.js";
import { cpuSeconds } from "../proc/cpu-time.js";
import type { DriverJob } from "../proc/messages.js";
import type { Target } from "../targets/catalog.js";
import { BENCH_HOST } from "../targets/listen.js";
import type { TargetRun } from "./target-run.js";

export interface DriveOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Pins the driver to CPU 1. */
  pin: boolean;
}

const REQUEST_TIMEOUT_MS = 10_000;
const MAX_ERRORS = 50;
/** Time the driver gets beyond warm-up and measurement: start-up and the last flows' answers. */
const DRIVER_GRACE_MS = 30_000;

/** What one driven window measured: the load, and the CPU seconds each watched process used in it. */
export interface Driven {
  load: TargetRun["load"];
  /** Per watched pid, in the order given; undefined when a process was gone before the window closed. */
  cpuSeconds: (number | undefined)[];
  failure?: string;
}

/**
 * Drives `port` with the target's flow from a separate driver process, and reads the CPU time of
 * every process in `watch` when the measured window opens and when it closes; `onPhase` hears of
 * both moments too, for what else is read over the window.
 */
export async function drive(
  target: Target,
  port: number,
  watch: readonly number[],
  options: DriveOptions,
  onPhase?: (phase: "measure" | "end") => void,
) {
  const job: DriverJob = {
    mode: "closed",
    host: BENCH_HOST,
    port,
    mix: { [target.flow]: 1 },
    concurrency: options.concurrency,
    warmupMs: options.warmupMs,
    durationMs: options.durationMs,
    timeoutMs: REQUEST_TIMEOUT_MS,
    maxErrors: MAX_ERRORS,
  };
  const driven: Driven = { load: undefined, cpuSeconds: watch.map(() => undefined) };
  let atStart: (number | undefined)[] = [];
  try {
    await runDriverChild(
      job,
      options.warmupMs + options.durationMs + DRIVER_GRACE_MS,
      (message) => {
        if (message.type === "result") driven.load = message.result;
        if (message.type === "phase" && message.phase === "measure") atStart = watch.map(cpuSeconds);
        if (message.type === "phase" && message.phase === "end") {
          driven.cpuSeconds = watch.map((pid, i) => {
            const [start, end] = [atStart[i], cpuSeconds(pid)];
            return start === undefined || end === undefined ? undefined : end - start;
          });
        }
        if (message.type === "phase") onPhase?.(message.phase);
        if (message.type === "failed") driven.failure = message.message;
      },
      options.pin ? { cpu: 1 } : {},
    );
  } catch (error) {
    driven.failure ??= error instanceof Error ? error.message : String(error);
  }
  return driven;
}

/** The sum, or undefined if any part is unknown: a total missing an instance would look cheap. */
export function total(parts: readonly (number | undefined)[]): number | undefined {
  let sum = 0;
  for (const part of parts) {
    if (part === undefined) return undefined;
    sum += part;
  }
  return parts.length === 0 ? undefined : sum;
}
