import { describe, expect, it } from "vitest";
import { LatencyRecorder, percentile } from "./latency.js";

describe("latency summary", () => {
  it("takes nearest-rank percentiles over every sample", () => {
    const recorder = new LatencyRecorder();
    for (let ms = 100; ms >= 1; ms--) recorder.record(ms);
    expect(recorder.summary()).toEqual({ count: 100, mean: 50.5, p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it("grows past its first buffer without losing samples", () => {
    const recorder = new LatencyRecorder();
    for (let i = 0; i < 10_000; i++) recorder.record(i % 7);
    expect(recorder.count).toBe(10_000);
    expect(recorder.summary().max).toBe(6);
  });

  it("reports NaN for an empty window rather than zero", () => {
    expect(percentile(new Float64Array(), 99)).toBeNaN();
    expect(new LatencyRecorder().summary().p50).toBeNaN();
  });
});
