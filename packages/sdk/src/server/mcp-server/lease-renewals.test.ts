import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaseRenewals } from "./lease-renewals.js";

describe("LeaseRenewals", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorder() {
    const renewed: string[] = [];
    const renewals = new LeaseRenewals(100, (key, token) => renewed.push(`${key}/${token}`));
    return { renewed, renewals };
  }

  it("renews every held round each period, all on one timer", () => {
    const { renewed, renewals } = recorder();
    renewals.hold("f.r1", "t1");
    renewals.hold("f.r2", "t2");
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(99);
    expect(renewed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(renewed).toEqual(["f.r1/t1", "f.r2/t2"]);
    vi.advanceTimersByTime(100);
    expect(renewed).toHaveLength(4);
  });

  it("renews a round held between two firings within a period of its hold", () => {
    const { renewed, renewals } = recorder();
    renewals.hold("f.r1", "t1");
    vi.advanceTimersByTime(60);
    renewals.hold("f.r2", "t2");
    vi.advanceTimersByTime(40);
    expect(renewed).toEqual(["f.r1/t1", "f.r2/t2"]);
  });

  it("stops renewing a round once released, and keeps renewing the others", () => {
    const { renewed, renewals } = recorder();
    renewals.hold("f.r1", "t1");
    renewals.hold("f.r2", "t2");
    renewals.release("t1");
    vi.advanceTimersByTime(300);
    expect(renewed).toEqual(["f.r2/t2", "f.r2/t2", "f.r2/t2"]);
  });

  it("tells two attempts at one round apart by their tokens", () => {
    const { renewed, renewals } = recorder();
    renewals.hold("f.r1", "old");
    renewals.hold("f.r1", "new");
    renewals.release("old");
    vi.advanceTimersByTime(100);
    expect(renewed).toEqual(["f.r1/new"]);
  });

  it("drops its timer after a period with nothing held, and starts one again for the next round", () => {
    const { renewed, renewals } = recorder();
    renewals.hold("f.r1", "t1");
    renewals.release("t1");
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    renewals.hold("f.r2", "t2");
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(renewed).toEqual(["f.r2/t2"]);
  });
});
