import { type ChildProcess, spawn } from "node:child_process";
import { get as httpGet } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { killOnExit } from "./children.js";

/** A cold start unwraps the keys through KMS; on a shared 2-core machine give it a long while. */
export const START_WITHIN_MS = 180_000;
/** The header each instance names itself in (the server's INSTANCE_NAME). */
export const INSTANCE_HEADER = "roundtrip-instance";
/** A drained instance has nothing in flight longer than a round; shutdown gets this long. */
const STOP_WITHIN_MS = 60_000;

/** The built server, as `node apps/server/dist/main.js` runs in production. */
function mainScript(): string {
  const entry = createRequire(import.meta.url).resolve("@roundtrip/server");
  return join(dirname(entry), "main.js");
}

export interface LogLine {
  msg?: string;
  reqId?: string;
  reason?: string;
  [field: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One run of the process: an instance is restarted into a new generation on the same port. */
interface Generation {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  readonly lines: LogLine[];
  text: string;
}

/**
 * One server process on a fixed loopback port, so the proxy's static upstream keeps pointing at it
 * across restarts. Its log is kept over every generation: the log is how a test learns which instance
 * served which round (each round carries its own X-Request-Id, logged as reqId).
 */
export class ServerInstance {
  readonly name: string;
  readonly port: number;
  #env: Record<string, string>;
  #generations: Generation[] = [];

  constructor(name: string, port: number, env: Record<string, string>) {
    this.name = name;
    this.port = port;
    this.#env = env;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The MCP endpoint at this instance's own address, bypassing the proxy. */
  get url(): string {
    return `${this.origin}/mcp`;
  }

  get generation(): number {
    return this.#generations.length;
  }

  /** Every log line of every generation, oldest first, tagged with its generation (1-based). */
  lines(): (LogLine & { generation: number })[] {
    return this.#generations.flatMap((run, index) =>
      run.lines.map((line) => ({ ...line, generation: index + 1 })),
    );
  }

  /** The request ids of every request this instance answered, with the generation that answered it. */
  served(): Map<string, number> {
    const served = new Map<string, number>();
    for (const line of this.lines()) {
      if (line.msg === "request completed" && typeof line.reqId === "string") {
        served.set(line.reqId, line.generation);
      }
    }
    return served;
  }

  /** The first line any generation logged that `matches`, waiting for it up to `withinMs`. */
  async untilLogged(matches: (line: LogLine) => boolean, withinMs = START_WITHIN_MS): Promise<LogLine> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const line = this.lines().find(matches);
      if (line !== undefined) return line;
      if (Date.now() > deadline) throw new Error(`${this.name} logged no such line within ${withinMs} ms`);
      await delay(25);
    }
  }

  output(): string {
    return this.#generations.map((run) => run.text).join("");
  }

  /** Starts a new generation, with `env` replacing the configuration when given; resolves once ready. */
  async start(env?: Record<string, string>): Promise<void> {
    if (env) this.#env = env;
    if (this.#running()) throw new Error(`${this.name} is already running`);
    const child = spawn(process.execPath, [mainScript()], {
      // INSTANCE_NAME: each response names the process that answered it, which a test can check
      // against nginx's $upstream_addr and the instance's own log.
      env: {
        ...process.env,
        ...this.#env,
        PORT: String(this.port),
        HOST: "127.0.0.1",
        INSTANCE_NAME: this.name,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    killOnExit(child);
    const run: Generation = { child, exited: exitOf(child), lines: [], text: "" };
    this.#generations.push(run);
    let partial = "";
    const append = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      run.text += text;
      const parts = (partial + text).split("\n");
      partial = parts.pop() ?? "";
      for (const raw of parts) run.lines.push(parseLine(raw));
    };
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    await this.#untilReady(run);
  }

  /** SIGTERM: readiness drops, in-flight rounds finish, the process exits 0. */
  async drain(): Promise<Exit> {
    const run = this.#current();
    run.child.kill("SIGTERM");
    return withDeadline(run.exited, STOP_WITHIN_MS, `${this.name} did not drain and exit`);
  }

  /** SIGKILL: the process dies on the spot, whatever it was doing. */
  async kill(): Promise<Exit> {
    const run = this.#current();
    run.child.kill("SIGKILL");
    return run.exited;
  }

  /** A rolling restart's step: drain, then start again (with new configuration when given). */
  async restart(env?: Record<string, string>): Promise<Exit> {
    const exit = await this.drain();
    await this.start(env);
    return exit;
  }

  /** Always safe to call: ends the process if it is still running, and waits for it. */
  async stop(): Promise<void> {
    const run = this.#generations.at(-1);
    if (run === undefined) return;
    if (this.#running()) run.child.kill("SIGKILL");
    await run.exited;
  }

  #running(): boolean {
    const run = this.#generations.at(-1);
    return run !== undefined && run.child.exitCode === null && run.child.signalCode === null;
  }

  #current(): Generation {
    const run = this.#generations.at(-1);
    if (run === undefined || !this.#running()) throw new Error(`${this.name} is not running`);
    return run;
  }

  /**
   * Ready means /readyz answers 200: the process listens before KMS has unwrapped its keys, and until
   * then turns MCP requests away with 503.
   */
  async #untilReady(run: Generation): Promise<void> {
    let exit: Exit | undefined;
    void run.exited.then((value) => {
      exit = value;
    });
    const deadline = Date.now() + START_WITHIN_MS;
    while (Date.now() < deadline) {
      if (exit !== undefined) {
        throw new Error(`${this.name} exited (${JSON.stringify(exit)}) before it was ready:\n${run.text}`);
      }
      if (await isReady(this.origin)) return;
      await delay(25);
    }
    throw new Error(`${this.name} was not ready within ${START_WITHIN_MS} ms:\n${run.text}`);
  }
}

/**
 * Runs the server with `env` as a fleet member would be, for a configuration it must refuse: resolves
 * with how it exited and what it wrote. One that is still running after START_WITHIN_MS is killed, and
 * its exit says so (SIGKILL).
 */
export async function runToExit(env: Record<string, string>): Promise<Exit & { output: string }> {
  const child = spawn(process.execPath, [mainScript()], {
    env: { ...process.env, ...env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const timer = setTimeout(() => child.kill("SIGKILL"), START_WITHIN_MS);
  // "close", not "exit": by then the output has been read to its end.
  const exit = await new Promise<Exit>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
  }).finally(() => clearTimeout(timer));
  return { ...exit, output };
}

function parseLine(raw: string): LogLine {
  try {
    return JSON.parse(raw) as LogLine;
  } catch {
    return { msg: raw };
  }
}

/**
 * One probe on a connection of its own, closed after it (`agent: false`). fetch's pool can keep a
 * connection it opened for a probe that gave up before sending anything, and Node's server.close()
 * leaves a connection that has not sent its first request open: a later drain of that instance then
 * waits on it until SHUTDOWN_TIMEOUT_MS and exits 1 (seen here, once in a few runs).
 */
function isReady(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = httpGet(`${origin}/readyz`, { agent: false, timeout: 3_000 }, (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode === 200));
      response.once("error", () => resolve(false));
    });
    probe.once("timeout", () => probe.destroy());
    probe.once("error", () => resolve(false));
  });
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
