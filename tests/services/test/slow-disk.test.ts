import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { RedisServer, redisCommand, slowDisk, waitFor } from "../src/index.js";

/**
 * A disk made slow to sync under a running Redis: with `appendfsync always` (the test servers'
 * default) each reply waits for its sync, and a kill -9 then loses nothing acknowledged. What
 * `everysec` loses under the same slow disk is shown by the deploy templates' durability test
 * (tests/infra), which the same measurement fails for it.
 */
const SYNC_LAG_MS = 100;
const WRITES = 20;

async function persistence(server: RedisServer, field: string): Promise<number> {
  const info = String(await redisCommand(server.url, ["INFO", "persistence"]));
  return Number(new RegExp(`^${field}:(\\d+)\\r?$`, "m").exec(info)?.[1] ?? Number.NaN);
}

describe.each(["redis-server", "valkey-server"] as const)("%s with a disk slow to sync", (program) => {
  it("appendfsync always replies only once the write is synced, and a kill -9 loses nothing", async () => {
    const server = await RedisServer.start({ program });
    try {
      const disk = await slowDisk(server.pid, SYNC_LAG_MS);
      try {
        const client = createClient({ url: server.url, disableOfflineQueue: true });
        client.on("error", () => {});
        await client.connect();
        const began = performance.now();
        let held = 0;
        try {
          for (let i = 0; i < WRITES; i++) {
            expect(await client.set(`key-${i}`, "value")).toBe("OK");
            held += await persistence(server, "aof_buffer_length");
          }
        } finally {
          client.destroy();
        }
        // Each reply waited for its sync: the lag is in every one of them (a lower bound only).
        expect(performance.now() - began).toBeGreaterThanOrEqual(WRITES * SYNC_LAG_MS);
        expect(held).toBe(0);
        await server.kill();
      } finally {
        await disk.end();
      }
      await server.start();
      await waitFor(
        "the append-only file read back",
        async () => (await persistence(server, "loading")) === 0,
      );
      expect(Number(await redisCommand(server.url, ["DBSIZE"]))).toBe(WRITES);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("a process already traced is refused, naming its tracer", async () => {
    const server = await RedisServer.start({ program });
    try {
      const disk = await slowDisk(server.pid, SYNC_LAG_MS);
      try {
        await expect(slowDisk(server.pid, SYNC_LAG_MS)).rejects.toThrow(
          new RegExp(
            `^process ${server.pid} is already traced by process \\d+, and a process has one tracer at a time`,
          ),
        );
      } finally {
        await disk.end();
      }
      // Ended, the disk is the disk's own again: a second tracer may attach.
      await (await slowDisk(server.pid, SYNC_LAG_MS)).end();
    } finally {
      await server.stop();
    }
  }, 120_000);
});
