import { type IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

/** What stalled a server's event loop during the measured window: its own delay, and V8's collections. */
export interface RuntimeStats {
  /** The event loop's delay, sampled every RESOLUTION_MS: how late a timer due then ran (0: on time). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Garbage collections on the main thread: how many, their summed pause, the longest one. */
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

/** Often enough to see a stall of a few milliseconds, rarely enough to cost next to nothing. */
const RESOLUTION_MS = 5;

/**
 * Watches this process's event loop and its garbage collections from the start, and reports both
 * for the window since the last `reset`: the harness resets when the measured window opens and reads
 * when it closes, so warm-up stalls (JIT, first connections) stay out of the figures.
 */
export class RuntimeWindow {
  readonly #delay: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly #gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.#gcCount++;
      this.#gcTotalMs += entry.duration;
      if (entry.duration > this.#gcMaxMs) this.#gcMaxMs = entry.duration;
    }
  });
  #gcCount = 0;
  #gcTotalMs = 0;
  #gcMaxMs = 0;

  constructor() {
    this.#delay.enable();
    this.#gc.observe({ entryTypes: ["gc"] });
  }

  reset(): void {
    this.#delay.reset();
    this.#gcCount = 0;
    this.#gcTotalMs = 0;
    this.#gcMaxMs = 0;
  }

  read(): RuntimeStats {
    // Entries queued but not yet delivered to the observer belong to this window too.
    for (const entry of this.#gc.takeRecords()) {
      this.#gcCount++;
      this.#gcTotalMs += entry.duration;
      if (entry.duration > this.#gcMaxMs) this.#gcMaxMs = entry.duration;
    }
    // A window with no sample yet has no delay to report (the empty histogram answers its defaults).
    // Each sample is the whole interval between two ticks of the monitor's timer: its own period,
    // then the delay; the period is taken off, so an idle loop reads about 0, not 5 ms.
    const sampled = this.#delay.count > 0;
    const ms = (ns: number) => (sampled && Number.isFinite(ns) ? Math.max(0, ns / 1e6 - RESOLUTION_MS) : 0);
    return {
      loopDelayP99Ms: ms(this.#delay.percentile(99)),
      loopDelayMaxMs: ms(this.#delay.max),
      gcCount: this.#gcCount,
      gcTotalMs: this.#gcTotalMs,
      gcMaxMs: this.#gcMaxMs,
    };
  }
}
