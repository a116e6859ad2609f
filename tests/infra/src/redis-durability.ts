import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/** One field of INFO persistence, or undefined where the server does not report it (AOF off). */
async function persistenceField(redis: RunningRedis, password: string | undefined, field: string) {
  const info = await cli(redis, password, ["INFO persistence"]);
  return new RegExp(`^${field}:(\\d+)\r?$`, "m").exec(info)?.[1];
}

/**
 * Waits until every acknowledged write has been handed to the kernel. With `everysec`, Redis
 * acknowledges a write before writing it to the AOF when the previous second's fsync is still
 * running (a busy disk), for up to 2 s; a SIGKILL then loses it, as a host crash would.
 */
async function handedToKernel(redis: RunningRedis, password: string | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pending = await persistenceField(redis, password, "aof_buffer_length");
    if (pending === undefined || pending === "0") return;
    if (Date.now() > deadline) throw new Error(`AOF buffer still holds ${pending} bytes after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

export interface DurabilityReport {
  /** What the server says of itself, started from the template's arguments. */
  config: Record<string, string>;
  /** Keys written in all: half before a clean restart, half before a SIGKILL. */
  written: number;
  afterRestart: number;
  /** Keys after a SIGKILL once every acknowledged write reached the kernel, and a start on what it left. */
  afterCrash: number;
  /** Keys held when memory fills up, the reply to a write then, and the keys left after it. */
  beforeFull: number;
  writeWhenFull: string;
  afterFull: number;
}

/**
 * What a template's Redis does with acknowledged writes, in a real redis-server started from the
 * template's own arguments on one data directory (the volume): written keys counted after a clean
 * restart, after SIGKILL and a start on what it left, and after memory fills up. The SIGKILL comes
 * once the writes are in the kernel (see handedToKernel): what `everysec` may lose before that is
 * the window the templates document, which no test can open on demand. Memory is "full" by lowering
 * maxmemory under what is in use, so the template's own policy decides: refuse the write
 * (noeviction) or drop keys to make room.
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
      const writes = (prefix: string) =>
        Array.from({ length: WRITES / 2 }, (_, i) => `SET once:${prefix}:${i} completed`);
      await cli(redis, password, writes("before-restart"));
      await redis.stop();
      redis = await startRedis(args, { dir });
      await loaded(redis, password);
      const afterRestart = await keyCount(redis, password);
      await cli(redis, password, writes("before-crash"));
      await handedToKernel(redis, password);
      await redis.crash();
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
        written: WRITES,
        afterRestart,
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
 * What every template's Redis must show (infra/README.md, "State that must not be forgotten"): AOF
 * fsynced every second, a memory cap that refuses writes rather than evicting, and every
 * acknowledged write still there after a clean restart and after SIGKILL.
 */
export function expectKeepsState(report: DurabilityReport): void {
  expect(report.config).toMatchObject({
    appendonly: "yes",
    appendfsync: "everysec",
    "maxmemory-policy": "noeviction",
  });
  expect(Number(report.config.maxmemory)).toBeGreaterThan(0);
  expect(report.afterRestart).toBe(report.written / 2);
  expect(report.afterCrash).toBe(report.written);
  expect(report.writeWhenFull).toMatch(/^OOM /);
  expect(report.afterFull).toBe(report.beforeFull);
}
