import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { slowDisk } from "@roundtrip/test-services";
import { createClient } from "redis";
import { expect } from "vitest";
import { type RunningRedis, startRedis } from "./redis.js";

/** Keys written before each fault: enough to span many event-loop turns, few enough to be quick. */
export const WRITES = 2_000;

/** Runs redis-cli against `redis`, one command per line of `lines`, authenticated by environment. */
function cli(redis: RunningRedis, password: string | undefined, lines: readonly string[]) {
  const { REDISCLI_AUTH: _inherited, ...env }: NodeJS.ProcessEnv = process.env;
  if (password !== undefined) env.REDISCLI_AUTH = password;
  return new Promise<string>((resolve, reject) => {
    const child = spawn(redis.cli, ["-p", String(redis.port), "--no-auth-warning"], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("error", reject);
    // redis-cli answers every line before it exits, so its exit means every write was acknowledged.
    child.once("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`redis-cli exited ${code}: ${out}`)),
    );
    child.stdin.end(`${lines.join("\n")}\n`);
  });
}

/** CONFIG GET replies, one name and one value a line, as a record. */
function pairs(reply: string): Record<string, string> {
  const lines = reply.split("\n");
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < lines.length; i += 2) record[lines[i]!] = lines[i + 1]!;
  return record;
}

/** One field of an INFO reply, or undefined where the server does not report it (AOF fields with AOF off). */
function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(\\d+)\r?$`, "m").exec(info)?.[1];
}

/** Waits until a restarted server has read its AOF or snapshot back (it answers LOADING until then). */
async function loaded(redis: RunningRedis, password: string | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const info = await cli(redis, password, ["INFO persistence"]);
    if (/^loading:0\r?$/m.test(info)) return;
    if (Date.now() > deadline) throw new Error(`redis-server still loading after 30 s: ${info}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function keyCount(redis: RunningRedis, password: string | undefined): Promise<number> {
  const reply = await cli(redis, password, ["DBSIZE"]);
  const count = Number(reply);
  if (!Number.isInteger(count)) throw new Error(`DBSIZE answered ${reply}`);
  return count;
}

/** Each sync of the server's files waits this long first while the SIGKILL is prepared: a busy disk, not a broken one. */
export const SLOW_SYNC_MS = 100;

/**
 * Everysec syncs once a second: writing this long one key at a time meets at least two of its syncs
 * under way, while each acknowledged write is checked for being held back.
 */
const LAGGING_WRITES_MS = 3_000;

/**
 * With the server's disk slow to sync, writes `keys` (pipelined, so writes share a sync as a busy
 * fleet's do), then one key at a time, each followed by INFO, and SIGKILLs the server as soon as it
 * reports acknowledged writes held only in its own memory (`aof_buffer_length` above 0: everysec does
 * that while its previous sync lags, for up to 2 s), or after LAGGING_WRITES_MS of writing. Returns the
 * keys acknowledged and the bytes the server held unwritten when it was killed.
 */
async function writeThenKill(
  redis: RunningRedis,
  password: string | undefined,
  keys: readonly string[],
): Promise<{ acknowledged: number; held: number }> {
  const disk = await slowDisk(redis.pid, SLOW_SYNC_MS);
  try {
    // One connection, its commands pipelined: a write counts once its reply is in.
    const connection = createClient({
      url: `redis://127.0.0.1:${redis.port}`,
      ...(password === undefined ? {} : { password }),
      disableOfflineQueue: true,
    });
    connection.on("error", () => {});
    await connection.connect();
    try {
      await Promise.all(keys.map((key) => connection.set(key, "completed")));
      let acknowledged = keys.length;
      let held = 0;
      const deadline = Date.now() + LAGGING_WRITES_MS;
      while (held === 0 && Date.now() < deadline) {
        await connection.set(`once:lagging:${acknowledged}`, "completed");
        acknowledged += 1;
        const info = await connection.info("persistence");
        held = Number(infoField(info, "aof_buffer_length") ?? 0);
      }
      // Killed with the connection still open: a client that leaves wakes Redis, which would then
      // write what it held if the sync has finished meanwhile.
      await redis.crash();
      return { acknowledged, held };
    } finally {
      connection.destroy();
    }
  } finally {
    await disk.end();
  }
}

export interface DurabilityReport {
  /** What the server says of itself, started from the template's arguments. */
  config: Record<string, string>;
  /**
   * Keys acknowledged before the SIGKILL, in all: WRITES / 2 before a clean restart, WRITES / 2 after
   * it with the disk slow to sync, and those written one at a time until the kill.
   */
  written: number;
  afterRestart: number;
  /** Bytes of acknowledged writes the server held only in its own memory when it was killed. */
  heldAtCrash: number;
  /** Keys after that SIGKILL and a start on what the server left. */
  afterCrash: number;
  /** Keys held when memory fills up, the reply to a write then, and the keys left after it. */
  beforeFull: number;
  writeWhenFull: string;
  afterFull: number;
}

/**
 * What a template's Redis does with acknowledged writes, in a real redis-server started from the
 * template's own arguments on one data directory (the volume): written keys counted after a clean
 * restart, after a SIGKILL while its disk is slow to sync (see writeThenKill) and a start on what it
 * left, and after memory fills up. The slow disk opens the window in which `everysec` acknowledges
 * writes it has not yet handed to the kernel, so a kill there loses them; `always` has no such window.
 * Memory is "full" by lowering maxmemory under what is in use, so the template's own policy decides:
 * refuse the write (noeviction) or drop keys to make room.
 */
export async function measureDurability(
  args: readonly string[],
  password: string | undefined,
): Promise<DurabilityReport> {
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-redis-volume-"));
  try {
    let redis = await startRedis(args, { dir });
    try {
      const config = pairs(
        await cli(redis, password, [
          "CONFIG GET appendonly",
          "CONFIG GET appendfsync",
          "CONFIG GET maxmemory-policy",
          "CONFIG GET maxmemory",
        ]),
      );
      const keys = (prefix: string) => Array.from({ length: WRITES / 2 }, (_, i) => `once:${prefix}:${i}`);
      const writes = (prefix: string) => keys(prefix).map((key) => `SET ${key} completed`);
      await cli(redis, password, writes("before-restart"));
      await redis.stop();
      redis = await startRedis(args, { dir });
      await loaded(redis, password);
      const afterRestart = await keyCount(redis, password);
      const { acknowledged, held } = await writeThenKill(redis, password, keys("before-crash"));
      redis = await startRedis(args, { dir });
      await loaded(redis, password);
      const afterCrash = await keyCount(redis, password);
      await cli(redis, password, writes("before-full"));
      const beforeFull = await keyCount(redis, password);
      await cli(redis, password, ["CONFIG SET maxmemory 1"]);
      const writeWhenFull = await cli(redis, password, ["SET once:late completed"]);
      const afterFull = await keyCount(redis, password);
      return {
        config,
        written: WRITES / 2 + acknowledged,
        afterRestart,
        heldAtCrash: held,
        afterCrash,
        beforeFull,
        writeWhenFull,
        afterFull,
      };
    } finally {
      await redis.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What every template's Redis must show (infra/README.md, "State that must not be forgotten"): an AOF
 * synced before each reply, a memory cap that refuses writes rather than evicting, and every
 * acknowledged write still there after a clean restart and after a SIGKILL while its disk lags.
 */
export function expectKeepsState(report: DurabilityReport): void {
  expect(report.config).toMatchObject({
    appendonly: "yes",
    appendfsync: "always",
    "maxmemory-policy": "noeviction",
  });
  expect(Number(report.config.maxmemory)).toBeGreaterThan(0);
  expect(report.afterRestart).toBe(WRITES / 2);
  expect(report.heldAtCrash).toBe(0);
  expect(report.afterCrash).toBe(report.written);
  expect(report.writeWhenFull).toMatch(/^OOM /);
  expect(report.afterFull).toBe(report.beforeFull);
}
