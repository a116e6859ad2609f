import { describe, expect, it } from "vitest";
import { RuntimeWindow } from "./runtime-window.js";

/** Keeps the event loop busy for `ms` of wall time: a stall, as a long synchronous task makes one. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe("RuntimeWindow", () => {
  it("sees a stall of the event loop and the collections of the window, and starts over on reset", async () => {
    const window = new RuntimeWindow();
    window.reset();
    await tick();
    stall(60);
    // Short-lived garbage, kept just long enough that no optimisation can elide it, until a
    // collection has been seen: a young generation fills after at most a few hundred MiB.
    for (let round = 0; round < 200 && window.read().gcCount === 0; round++) {
      const kept: { i: number; text: string }[] = [];
      for (let i = 0; i < 50_000; i++) kept.push({ i, text: `item ${i}` });
      expect(kept).toHaveLength(50_000);
      await tick();
    }
    await tick();
    const seen = window.read();
    // A timer due during the 60 ms busy loop ran at least that late, less one sampling interval.
    expect(seen.loopDelayMaxMs).toBeGreaterThanOrEqual(50);
    expect(seen.loopDelayP99Ms).toBeGreaterThanOrEqual(0);
    expect(seen.loopDelayP99Ms).toBeLessThanOrEqual(seen.loopDelayMaxMs);
    expect(seen.gcCount).toBeGreaterThan(0);
    expect(seen.gcTotalMs).toBeGreaterThan(0);
    expect(seen.gcMaxMs).toBeLessThanOrEqual(seen.gcTotalMs);
    // An idle loop is on time: what the monitor's own period adds to each sample is not a delay.
    window.reset();
    await tick();
    await tick();
    const idle = window.read();
    expect(idle.loopDelayP99Ms).toBeLessThan(seen.loopDelayMaxMs);
    window.reset();
    expect(window.read()).toEqual({
      loopDelayP99Ms: 0,
      loopDelayMaxMs: 0,
      gcCount: 0,
      gcTotalMs: 0,
      gcMaxMs: 0,
    });
  });
});
