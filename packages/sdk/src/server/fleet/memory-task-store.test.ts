import { describe, expect, it } from "vitest";
import { MemoryTaskStore } from "./memory-task-store.js";
import type { TaskRecord } from "./task-store.js";

const T0 = Date.UTC(2026, 0, 1);

function record(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: "task-1",
    principal: "anonymous",
    status: "working",
    createdAt: T0,
    lastUpdatedAt: T0,
    ttlMs: 1000,
    revision: 0,
    ...overrides,
  };
}

describe("MemoryTaskStore", () => {
  it("refuses a second task under a taken id", async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    await expect(store.create(record())).rejects.toThrow(/already taken/);
  });

  it("writes only over the revision the writer read, so one of two racing writers wins", async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    const read = (await store.get("task-1")) as TaskRecord;
    expect(await store.compareAndSet(read, { ...read, status: "cancelled" })).toBe(true);
    expect(await store.compareAndSet(read, { ...read, status: "completed" })).toBe(false);
    expect(await store.get("task-1")).toMatchObject({ status: "cancelled", revision: 1 });
  });

  it("tells a watcher of every change until it stops watching", async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    let calls = 0;
    const stop = store.watch("task-1", () => {
      calls += 1;
    });
    const first = (await store.get("task-1")) as TaskRecord;
    await store.compareAndSet(first, { ...first, status: "input_required" });
    stop();
    const second = (await store.get("task-1")) as TaskRecord;
    await store.compareAndSet(second, { ...second, status: "working" });
    expect(calls).toBe(1);
  });

  it("forgets a task once its ttlMs has passed, and keeps one whose ttlMs is null", async () => {
    let now = T0;
    const store = new MemoryTaskStore({ now: () => now });
    await store.create(record());
    await store.create(record({ taskId: "forever", ttlMs: null }));
    now = T0 + 999;
    expect(await store.get("task-1")).toBeDefined();
    now = T0 + 1000;
    expect(await store.get("task-1")).toBeUndefined();
    expect(await store.get("forever")).toBeDefined();
  });
});

describe("MemoryTaskStore's sweep of expired tasks", () => {
  it("costs a constant number of expiry checks per task made, however many are kept", async () => {
    let checks = 0;
    const store = new MemoryTaskStore({
      now: () => {
        checks += 1;
        return T0;
      },
    });
    const made = 5_000;
    for (let i = 0; i < made; i++) await store.create(record({ taskId: `task-${i}`, ttlMs: 3_600_000 }));
    // A sweep on every task made would check about made²/2 = 12.5 million times.
    expect(checks).toBeLessThan(4 * made);
  });
});
