import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureTool, exitOf, freePort, killWithForks } from "@roundtrip/test-services";
import { run } from "./repo.js";

/**
 * What node-redis 6 takes from a `redis[s]://` URL (RedisClient.parseURL): it reads the URL with
 * WHATWG URL and percent-decodes the credentials, so the same is done here.
 */
export interface RedisTarget {
  tls: boolean;
  host: string;
  port: number | undefined;
  username: string | undefined;
  password: string | undefined;
  database: number | undefined;
}

export function parseRedisUrl(url: string): RedisTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new TypeError(`${url} is not a redis: or rediss: URL`);
  const database = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  if (database !== undefined && !Number.isInteger(database)) throw new TypeError(`${url} names no database`);
  return {
    tls: parsed.protocol === "rediss:",
    host: parsed.hostname,
    port: parsed.port === "" ? undefined : Number(parsed.port),
    username: parsed.username === "" ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === "" ? undefined : decodeURIComponent(parsed.password),
    database,
  };
}

export interface RunningRedis {
  port: number;
  /** The server's process id, for tools that act on it in place (slowDisk). */
  pid: number;
  /** redis-cli from the same installation as the server. */
  cli: string;
  /** Its working directory, the container's /data: where the AOF and snapshots go. */
  dir: string;
  stop(): Promise<void>;
  /** SIGKILL: the process dies between two instructions, as on an OOM kill or a crash. */
  crash(): Promise<void>;
}

export interface StartOptions {
  /** The data directory, to start again on what an earlier server left; a fresh one, removed on stop, without. */
  dir?: string;
}

/**
 * A real redis-server started with `args` (a template's own arguments), on a free loopback port,
 * in a data directory standing for the image's working directory /data. Resolves once it answers,
 * with or without a password.
 */
export async function startRedis(args: readonly string[], options: StartOptions = {}): Promise<RunningRedis> {
  const server = await ensureTool("redis-server");
  // Debian's redis-server depends on redis-tools, which puts redis-cli next to it.
  const cli = join(dirname(server), "redis-cli");
  if (!existsSync(cli)) throw new Error(`no redis-cli next to ${server}`);
  const port = await freePort();
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "roundtrip-redis-data-")));
  const ownsDir = options.dir === undefined;
  const child: ChildProcess = spawn(server, [...args, "--port", String(port), "--bind", "127.0.0.1"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = exitOf(child);
  const removeDir = async () => {
    // A fork may create a file until it has ended: a crash's SIGKILL reaches it a moment later, and a
    // shutdown ends the server's forks without waiting for them.
    if (ownsDir) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await removeDir();
  };
  // As the crash of a host: the forks of the process (an AOF rewrite, a save) die with it.
  const crash = async () => {
    await killWithForks(child);
    await removeDir();
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited ${child.exitCode}: ${stderr}`);
    const reply = await run(cli, ["-p", String(port), "ping"]).then(
      ({ stdout }) => stdout.trim(),
      () => "",
    );
    if (reply === "PONG" || reply.startsWith("NOAUTH"))
      return { port, pid: child.pid!, cli, dir, stop, crash };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not answer on ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** PING as `target` would send it, at the local server: the reply, e.g. PONG or a NOAUTH/WRONGPASS error. */
export async function pingAs(redis: RunningRedis, target: RedisTarget): Promise<string> {
  const args = ["-p", String(redis.port), "-n", String(target.database ?? 0), "--no-auth-warning"];
  if (target.username !== undefined) args.push("--user", target.username);
  // REDISCLI_AUTH keeps the password out of the argument list, as the compose health check does.
  const { REDISCLI_AUTH: _inherited, ...env }: NodeJS.ProcessEnv = process.env;
  if (target.password !== undefined) env.REDISCLI_AUTH = target.password;
  const { stdout, stderr } = await run(redis.cli, [...args, "ping"], { env });
  return `${stdout}${stderr}`.trim();
}
