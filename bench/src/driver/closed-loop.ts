import { LatencyRecorder } from "../stats/latency.js";
import { type Flow, splitTimes } from "./flow.js";
import type { PostClient } from "./http-client.js";
import { ErrorLog, type LoadResult } from "./load-result.js";

export interface ClosedLoopOptions {
  client: PostClient;
  flow: Flow;
  /** Flows in flight at all times: each worker starts its next flow when the last one ends. */
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Stop early once this many flows failed: a broken target needs no more load. */
  maxErrors: number;
  /** Told when the measured window opens and closes, so the server's CPU time can be read then. */
  onPhase?: (phase: "measure" | "end") => void;
}

const now = (): number => performance.now();

/**
 * Runs whole flows back to back on `concurrency` workers, first for the warm-up (JIT, pools, heap
 * growth), then for the measured window. Only flows that end inside the window count.
 */
export async function runClosedLoop(options: ClosedLoopOptions): Promise<LoadResult> {
  const { client, flow, concurrency, maxErrors } = options;
  const measureStart = now() + options.warmupMs;
  const measureEnd = measureStart + options.durationMs;
  const latency = new LatencyRecorder();
  const pollLatency = new LatencyRecorder();
  const errors = new ErrorLog();
  let flows = 0;
  let rounds = 0;
  let seq = 0;
  // The window opens and closes exactly once each, by timer, or at the end if a starved process
  // resumed past measureEnd and finished before its timer got to run.
  let phase: "warmup" | "measure" | "end" = "warmup";
  let cpuAtOpen = process.cpuUsage();
  let driverCpu = { user: 0, system: 0 };
  const open = (): void => {
    if (phase !== "warmup") return;
    phase = "measure";
    cpuAtOpen = process.cpuUsage();
    options.onPhase?.("measure");
  };
  const close = (): void => {
    if (phase !== "measure") return;
    phase = "end";
    driverCpu = process.cpuUsage(cpuAtOpen);
    options.onPhase?.("end");
  };
  const opened = setTimeout(open, options.warmupMs);
  const closed = setTimeout(close, options.warmupMs + options.durationMs);

  const worker = async (): Promise<void> => {
    while (now() < measureEnd && errors.count < maxErrors) {
      try {
        const times = splitTimes(await flow(client, seq++));
        const done = now();
        if (done < measureStart || done > measureEnd) continue;
        flows++;
        rounds += times.rounds.length;
        for (const ms of times.rounds) latency.record(ms);
        for (const ms of times.polls) pollLatency.record(ms);
      } catch (error) {
        errors.add(error);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  clearTimeout(opened);
  clearTimeout(closed);
  // A run cut short by errors has no window to report.
  if (errors.count < maxErrors) {
    open();
    close();
  }

  const seconds = options.durationMs / 1000;
  return {
    flows,
    rounds,
    seconds,
    flowsPerSecond: flows / seconds,
    roundsPerSecond: rounds / seconds,
    latency: latency.summary(),
    ...(pollLatency.count > 0 ? { polls: pollLatency.count, pollLatency: pollLatency.summary() } : {}),
    errors: errors.count,
    errorSamples: errors.samples,
    driverCpuSeconds: (driverCpu.user + driverCpu.system) / 1e6,
  };
}
