import type { LatencySummary } from "../stats/latency.js";

/** What a closed-loop run measured. */
export interface LoadResult {
  /** Flows that completed inside the measured window. */
  flows: number;
  rounds: number;
  seconds: number;
  flowsPerSecond: number;
  roundsPerSecond: number;
  /** Round (request) latency, over the rounds of the counted flows. */
  latency: LatencySummary;
  /** For a flow that polls (a task's tasks/get): how many polls the counted flows made, and their latency. */
  polls?: number;
  pollLatency?: LatencySummary;
  /** Flows that failed at any time, warm-up included. */
  errors: number;
  errorSamples: string[];
  /**
   * CPU seconds the driver itself used in the window. Near one core, the driver and not the server
   * set the pace, which matters most for the floor.
   */
  driverCpuSeconds: number;
}

/** One time window of an open-loop run. */
export interface WindowStats {
  index: number;
  /** Seconds from the start of the run to the end of this window. */
  endS: number;
  flows: number;
  rounds: number;
  errors: number;
  /** Flows due by the schedule that could not start because too many were still running. */
  shed: number;
  latency: LatencySummary;
  errorSamples: string[];
}

/** Keeps the first few distinct failure messages, enough to diagnose without flooding the output. */
export class ErrorLog {
  readonly samples: string[] = [];
  count = 0;

  add(error: unknown): void {
    this.count++;
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (this.samples.length < 5 && !this.samples.includes(text)) this.samples.push(text);
  }
}
