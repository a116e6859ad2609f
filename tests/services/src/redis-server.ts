import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureTool } from "./ensure-tool.js";
import { freePort } from "./free-port.js";
import { exitOf, killWithForks } from "./process-forks.js";

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

/** The servers that speak Redis's protocol and run the same way: Valkey is a drop-in for Redis. */
export type RedisProgram = "redis-server" | "valkey-server";

export interface RedisServerOptions {
  /** Which server to run (default redis-server). */
  readonly program?: RedisProgram;
  /** A configuration file, read first (Sentinel keeps its state in it, so it must be writable). */
  readonly configFile?: string;
  /**
   * Arguments placed after the defaults, so they override them, e.g. `["--maxmemory-policy",
   * "volatile-lru"]`, `["--appendonly", "no"]`, `["--replicaof", "127.0.0.1", "6379"]`,
   * `["--cluster-enabled", "yes"]`.
   */
  readonly config?: readonly string[];
}

/**
 * The settings under which a Redis keeps what it acknowledged, as the server requires of its store:
 * an append-only file synced before each reply (`everysec` replies first and, while a sync lags,
 * holds writes in memory for up to 2 s, which a kill loses), no eviction. The file lives in the
 * server's own folder.
 */
const DURABLE = [
  "--save",
  "",
  "--appendonly",
  "yes",
  "--appendfsync",
  "always",
  "--maxmemory-policy",
  "noeviction",
];

// A killed server's folder outlives it (a restart reads its file back); stop() removes it, and what a
// test left goes when this process ends.
const folders = new Set<string>();
process.once("exit", () => {
  for (const folder of folders) removeFolder(folder);
});

/**
 * Removes a server's folder. A fork just sent SIGKILL may still create a file in it until the kernel
 * delivers the signal, which rm meets as ENOTEMPTY and retries.
 */
function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/**
 * A real redis-server (or valkey-server) on 127.0.0.1, durable by default (its append-only file in a
 * folder of its own); `config` changes any setting. `kill()` ends the process and keeps its folder and
 * port, so `start()` brings it back with what it had written; `stop()` ends it for good and removes
 * the folder. `freeze()` and `thaw()` stall it in place.
 */
export class RedisServer {
  readonly port: number;
  readonly program: RedisProgram;
  /** Its working directory, its own: a replica writes the copy it syncs there, and Valkey's RDB format is one redis-server cannot load. */
  readonly dir: string;
  readonly #binary: string;
  readonly #options: RedisServerOptions;
  #process: ChildProcess | undefined;
  #stopped = false;

  private constructor(binary: string, port: number, dir: string, options: RedisServerOptions) {
    this.#binary = binary;
    this.dir = dir;
    this.port = port;
    this.program = options.program ?? "redis-server";
    this.#options = options;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const binary = await ensureTool(options.program ?? "redis-server");
    const dir = mkdtempSync(join(tmpdir(), "roundtrip-redis-"));
    folders.add(dir);
    const server = new RedisServer(binary, await freePort(), dir, options);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The running process's id, for tools that act on it in place (see slowDisk). */
  get pid(): number {
    const child = this.#process;
    const pid = child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
    if (pid === undefined) throw new Error(`${this.program} on port ${this.port} is not running`);
    return pid;
  }

  async start(): Promise<void> {
    if (this.#stopped)
      throw new Error(
        `${this.program} on port ${this.port} was stopped for good: kill() it to start it again`,
      );
    const { configFile, config = [] } = this.#options;
    const args = [
      ...(configFile === undefined ? [] : [configFile]),
      ...["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir],
      ...DURABLE,
      ...config,
    ];
    const child = spawn(this.#binary, args, { stdio: ["ignore", "pipe", "ignore"] });
    this.#process = child;
    // The end of its log, so a server that exits at start says why.
    let log = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      log = (log + chunk.toString("utf8")).slice(-2000);
    });
    const deadline = Date.now() + 10_000;
    let delay = 5;
    while (!(await pings(this.port))) {
      if (child.exitCode !== null) {
        const last = log
          .trim()
          .split("\n")
          .pop()
          ?.replace(/^\d+:\w \S+ \S+ \S+ \S+ [#*.-] /, "");
        throw new Error(`${this.program} exited with ${child.exitCode}${last ? `: ${last}` : ""}`);
      }
      if (Date.now() > deadline) throw new Error(`${this.program} did not answer on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 100);
    }
  }

  /**
   * Stops the process where it stands (SIGSTOP), as a host that freezes or swaps it out does: it keeps
   * its port and its connections, takes what clients write, and answers nothing until `thaw()`.
   */
  freeze(): void {
    this.#signal("SIGSTOP");
  }

  thaw(): void {
    this.#signal("SIGCONT");
  }

  #signal(signal: NodeJS.Signals): void {
    const child = this.#process;
    if (!child || child.exitCode !== null) throw new Error(`${this.program} is not running to get ${signal}`);
    child.kill(signal);
  }

  /**
   * Ends the server (SIGKILL, as a crash of its host: the process and any AOF rewrite or save it forked
   * die at once, and only what its file already holds survives; SIGTERM, as an operator's restart:
   * Redis ends its forks and finishes its append-only file itself) and waits for it; the folder and
   * port stay for `start()`. A frozen server is thawed first, since it would not see SIGTERM otherwise.
   */
  async kill(signal: "SIGKILL" | "SIGTERM" = "SIGKILL"): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (!child) return;
    if (signal === "SIGKILL") return killWithForks(child);
    const exited = exitOf(child);
    child.kill("SIGCONT");
    child.kill(signal);
    await exited;
  }

  /** Ends the server and what it forked, and removes its folder; it cannot start again. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.kill();
    folders.delete(this.dir);
    removeFolder(this.dir);
  }
}
