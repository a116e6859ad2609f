import { describe, expect, it } from "vitest";
import { MemoryOnceStore } from "./memory-once-store.js";

const TTL = { outcomeMs: 1000, consumedMs: 60_000 };

function leaseOf(token: string, holder = "a/1") {
  return { token, holder, leaseMs: 300, ttlMs: 60_000 };
}

describe("MemoryOnceStore leases, on a fake clock", () => {
  it("a lease that lapses before its handler started goes to the next attempt, once", async () => {
    let now = 0;
    const store = new MemoryOnceStore({ now: () => now });
    expect(await store.lease("r", leaseOf("t1"))).toEqual({ leased: true, attempt: 1 });
    now = 299;
    expect(await store.lease("r", leaseOf("t2", "b/2"))).toEqual({
      leased: false,
      record: { status: "pending", started: false, leaseMs: 1, holder: "a/1", attempt: 1 },
    });
    now = 300;
    expect(await store.read("r")).toEqual({ status: "orphaned", started: false, holder: "a/1", attempt: 1 });
    expect(await store.lease("r", leaseOf("t2", "b/2"))).toEqual({ leased: true, attempt: 2 });
    // The first holder, waking late, finds the round is no longer its own.
    expect(await store.start("r", "t1", 300)).toBe(false);
    expect(await store.renew("r", "t1", 300)).toBe(false);
    expect(await store.start("r", "t2", 300)).toBe(true);
    expect(await store.read("r")).toMatchObject({
      status: "pending",
      started: true,
      holder: "b/2",
      attempt: 2,
    });
  });

  it("a lease that lapses after its handler started leaves the round orphaned: never leased again", async () => {
    let now = 0;
    const store = new MemoryOnceStore({ now: () => now });
    await store.lease("r", leaseOf("t1"));
    await store.start("r", "t1", 300);
    now = 200;
    expect(await store.renew("r", "t1", 300)).toBe(true);
    now = 499;
    expect(await store.read("r")).toMatchObject({ status: "pending", started: true, leaseMs: 1 });
    now = 500;
    const orphaned = { status: "orphaned", started: true, holder: "a/1", attempt: 1 };
    expect(await store.lease("r", leaseOf("t2"))).toEqual({ leased: false, record: orphaned });
    expect(await store.lease("r", leaseOf("t3"))).toEqual({ leased: false, record: orphaned });
    // A holder that was only slow still records its outcome, and repeats get it from then on.
    await store.complete("r", "t1", "sealed", TTL);
    expect(await store.lease("r", leaseOf("t4"))).toEqual({
      leased: false,
      record: { status: "done", outcome: "sealed" },
    });
  });

  it("a released round is free again; a release by another token changes nothing", async () => {
    const store = new MemoryOnceStore({ now: () => 0 });
    await store.lease("r", leaseOf("t1"));
    await store.start("r", "t1", 300);
    await store.release("r", "t2");
    expect(await store.read("r")).toMatchObject({ status: "pending", started: true });
    await store.release("r", "t1");
    expect(await store.read("r")).toEqual({ status: "free" });
    await expect(store.lease("r", { ...leaseOf("t"), leaseMs: 0 })).rejects.toThrow(RangeError);
    expect(await store.read("r")).toEqual({ status: "free" });
  });
});
