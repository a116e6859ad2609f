import { LatencyRecorder } from "../stats/latency.js";
import { type Flow, splitTimes } from "./flow.js";
import type { PostClient } from "./http-client.js";
import { ErrorLog, type WindowStats } from "./load-result.js";

export interface OpenLoopOptions {
  client: PostClient;
  flow: Flow;
  /** Flows started per second, whatever the server's pace: a slowing server shows as latency. */
  rate: number;
  durationMs: number;
  windowMs: number;
  /** A cap on flows in flight; a due flow that finds the cap reached is shed and counted. */
  maxInFlight: number;
  onWindow: (window: WindowStats) => void;
}

const TICK_MS = 5;

class Window {
  readonly latency = new LatencyRecorder();
  readonly errors = new ErrorLog();
  flows = 0;
  rounds = 0;
  shed = 0;

  stats(index: number, endS: number): WindowStats {
    return {
      index,
      endS,
      flows: this.flows,
      rounds: this.rounds,
      errors: this.errors.count,
      shed: this.shed,
      latency: this.latency.summary(),
      errorSamples: this.errors.samples,
    };
  }
}

/**
 * Starts flows on a fixed schedule (flow i at i / rate seconds) and reports each time window: the
 * load a long run needs, since a closed loop would quietly slow down along with a degrading server.
 * Flows are counted in the window in which they end.
 */
export async function runOpenLoop(options: OpenLoopOptions): Promise<void> {
  const { client, flow, rate, windowMs, maxInFlight } = options;
  const start = performance.now();
  const windows = Math.max(1, Math.ceil(options.durationMs / windowMs));
  let current = new Window();
  let index = 0;
  let started = 0;
  let inFlight = 0;
  const running = new Set<Promise<void>>();

  const launch = (seq: number): void => {
    inFlight++;
    // The window open when the flow ends gets it, which may be a later one than when it started.
    const done = flow(client, seq).then(
      (times) => {
        const { rounds } = splitTimes(times);
        current.flows++;
        current.rounds += rounds.length;
        for (const ms of rounds) current.latency.record(ms);
      },
      (error: unknown) => current.errors.add(error),
    );
    const tracked = done.finally(() => {
      inFlight--;
      running.delete(tracked);
    });
    running.add(tracked);
  };

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - start;
      const due = Math.floor((Math.min(elapsed, options.durationMs) / 1000) * rate);
      while (started < due) {
        if (inFlight >= maxInFlight) current.shed++;
        else launch(started);
        started++;
      }
      while (index < windows && elapsed >= (index + 1) * windowMs) {
        options.onWindow(current.stats(index, ((index + 1) * windowMs) / 1000));
        current = new Window();
        index++;
      }
      if (index >= windows) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  // Flows still running at the end are awaited and land in one last window, so no failure goes unseen.
  await Promise.all(running);
  if (current.flows > 0 || current.errors.count > 0) {
    options.onWindow(current.stats(index, (performance.now() - start) / 1000));
  }
}
