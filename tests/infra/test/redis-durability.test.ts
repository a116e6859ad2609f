import { describe, expect, it } from "vitest";
import { measureDurability, WRITES } from "../src/redis-durability.js";

// The measurement the compose and Kubernetes tests hold their Redis to must be able to fail: the
// arguments every template used before (no snapshots, no AOF, an evicting policy) lose everything,
// and the AOF synced once a second, which they used next, loses acknowledged writes to a kill.
describe("measureDurability", () => {
  it("sees a Redis without persistence forget every write on restart and crash, and evict when full", async () => {
    const report = await measureDurability(
      ["--save", "", "--appendonly", "no", "--maxmemory-policy", "allkeys-lru"],
      undefined,
    );
    expect(report.config).toMatchObject({ appendonly: "no", "maxmemory-policy": "allkeys-lru" });
    expect(report.written).toBeGreaterThan(WRITES);
    expect(report.afterRestart).toBe(0);
    expect(report.afterCrash).toBe(0);
    // Evicting makes room by dropping what the fleet relied on, without a word to the writer.
    expect(report.beforeFull).toBe(WRITES / 2);
    expect(report.afterFull).toBeLessThan(report.beforeFull);
  }, 120_000);

  it("sees snapshots alone lose what was written after the last one when the process is killed", async () => {
    // The default `save` points are minutes apart; a SIGKILL before then loses the latest writes.
    const report = await measureDurability(
      ["--appendonly", "no", "--maxmemory-policy", "noeviction"],
      undefined,
    );
    // A clean shutdown writes a snapshot, so the restart keeps the first half.
    expect(report.afterRestart).toBe(WRITES / 2);
    expect(report.afterCrash).toBe(WRITES / 2);
    expect(report.writeWhenFull).toMatch(/^OOM /);
    expect(report.afterFull).toBe(report.beforeFull);
  }, 120_000);

  it("sees an AOF synced every second lose acknowledged writes when killed while its disk is slow to sync", async () => {
    // Everysec replies without writing while its previous sync lags; the kill loses those writes only
    // if it lands before the sync ends and Redis writes them, so an attempt that misses is tried again.
    let lost = 0;
    for (let attempt = 1; attempt <= 5 && lost === 0; attempt++) {
      const report = await measureDurability(
        ["--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy", "noeviction"],
        undefined,
      );
      expect(report.config).toMatchObject({ appendonly: "yes", appendfsync: "everysec" });
      // A clean restart keeps everything: the loss is the kill's alone.
      expect(report.afterRestart).toBe(WRITES / 2);
      lost = report.written - report.afterCrash;
      expect(lost).toBeGreaterThanOrEqual(0);
    }
    expect(lost).toBeGreaterThan(0);
  }, 300_000);
});
