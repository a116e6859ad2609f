import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import type { LogLine } from "./log-capture.js";

const APP_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** A started server logs within seconds; a busy machine can make that minutes. */
export const CHILD_START_WITHIN_MS = 180_000;

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  /** The MCP endpoint at the child's address. */
  readonly url: string;
  readonly origin: string;
  /** Everything the child wrote, stdout and stderr. */
  output(): string;
  lines(): LogLine[];
  waitForLog(matches: (line: LogLine) => boolean, what: string): Promise<LogLine>;
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<ChildExit>;
  stop(): Promise<void>;
}

/** Runs `src/main.ts` as a real process, configured only by its environment, as in production. */
function spawnMain(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, typescriptArgs("src/main.ts"), {
    cwd: APP_DIR,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

class Output {
  #text = "";
  #lines: LogLine[] = [];
  #partial = "";
  #waiters: { matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  append(chunk: Buffer): void {
    const text = chunk.toString("utf8");
    this.#text += text;
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const raw of parts) {
      let line: LogLine;
      try {
        line = JSON.parse(raw) as LogLine;
      } catch {
        line = { level: 0, msg: raw };
      }
      this.#lines.push(line);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.matches(line)) return true;
        waiter.resolve(line);
        return false;
      });
    }
  }

  get text(): string {
    return this.#text;
  }

  get lines(): LogLine[] {
    return [...this.#lines];
  }

  wait(matches: (line: LogLine) => boolean): Promise<LogLine> {
    const seen = this.#lines.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ matches, resolve }));
  }
}

function exitOf(child: ChildProcess): Promise<ChildExit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

function watch(child: ChildProcess): { output: Output; exited: Promise<ChildExit> } {
  const output = new Output();
  child.stdout?.on("data", (chunk: Buffer) => output.append(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.append(chunk));
  return { output, exited: exitOf(child) };
}

/** Resolves with the line, or rejects when the child exits first or the deadline passes. */
async function waitOrFail(
  output: Output,
  exited: Promise<ChildExit>,
  matches: (line: LogLine) => boolean,
  what: string,
): Promise<LogLine> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the server process did not log ${what} within ${CHILD_START_WITHIN_MS} ms:\n${output.text}`,
          ),
        ),
      CHILD_START_WITHIN_MS,
    );
  });
  const died = exited.then((exit) => {
    throw new Error(
      `the server process exited (${JSON.stringify(exit)}) before logging ${what}:\n${output.text}`,
    );
  });
  try {
    return await Promise.race([output.wait(matches), died, deadline]);
  } finally {
    clearTimeout(timer);
    died.catch(() => {});
  }
}

export async function startChildServer(env: Record<string, string>, mcpPath = "/mcp"): Promise<ChildServer> {
  const child = spawnMain(env);
  const { output, exited } = watch(child);
  const listening = await waitOrFail(output, exited, (line) => line.msg === "listening", "that it listens");
  const origin = String(listening.address);
  await waitOrFail(
    output,
    exited,
    (line) => line.msg !== undefined && /request-state keys/.test(line.msg),
    "its keys",
  );
  return {
    url: `${origin}${mcpPath}`,
    origin,
    output: () => output.text,
    lines: () => output.lines,
    waitForLog: (matches, what) => waitOrFail(output, exited, matches, what),
    kill: (signal) => child.kill(signal),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Runs main.ts to its end, for configurations that must stop it. */
export async function runChildToExit(env: Record<string, string>): Promise<ChildExit & { output: string }> {
  const child = spawnMain(env);
  const { output, exited } = watch(child);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`the server process did not exit within ${CHILD_START_WITHIN_MS} ms:\n${output.text}`),
      );
    }, CHILD_START_WITHIN_MS);
  });
  try {
    const exit = await Promise.race([exited, deadline]);
    return { ...exit, output: output.text };
  } finally {
    clearTimeout(timer);
  }
}
