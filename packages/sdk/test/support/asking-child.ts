import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";

const asking = fileURLToPath(new URL("./asking-server-main.ts", import.meta.url));

/** The child loads the SDK's sources, stripping their types: quick, but slow on a busy machine. */
const START_WITHIN_MS = 120_000;
/** A bound on waiting for one thing the child does, far above what it takes on any machine. */
const EVENT_WITHIN_MS = 60_000;

export interface ChildLine {
  msg?: string;
  [field: string]: unknown;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * `asking-server-main.ts` as a real process: a crash in it is the process dying, seen here as `exited`
 * settling, with what it wrote to stderr.
 */
export class AskingChild {
  readonly exited: Promise<ChildExit>;
  readonly #child: ChildProcess;
  readonly #lines: ChildLine[] = [];
  readonly #waiters = new Set<() => void>();
  #stderr = "";
  #url = "";

  private constructor(child: ChildProcess) {
    this.#child = child;
    let partial = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const parts = (partial + chunk.toString("utf8")).split("\n");
      partial = parts.pop() ?? "";
      for (const raw of parts) this.#lines.push(parseLine(raw));
      for (const wake of [...this.#waiters]) wake();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString("utf8");
    });
    this.exited = new Promise<ChildExit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }

  /** Starts `main` (default `asking-server-main.ts`; another main writes the same "listening" line). */
  static async start(env: Record<string, string> = {}, main = asking): Promise<AskingChild> {
    const child = new AskingChild(
      spawn(process.execPath, typescriptArgs(main), {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    try {
      const listening = await child.waitFor(
        (l) => l.msg === "listening",
        "that it listens",
        0,
        START_WITHIN_MS,
      );
      child.#url = String(listening.url);
      return child;
    } catch (error) {
      // Nobody else holds it yet: a process that never came up must not outlive the test.
      await child.stop();
      throw error;
    }
  }

  /** The MCP endpoint. */
  get url(): string {
    return this.#url;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  lines(): readonly ChildLine[] {
    return this.#lines;
  }

  /** How many lines the process has written: pass it to `waitFor` to wait for a line written after now. */
  mark(): number {
    return this.#lines.length;
  }

  /** The first line from `from` on that `matches`; fails at once if the process exits first. */
  waitFor(
    matches: (line: ChildLine) => boolean,
    what: string,
    from = 0,
    within = EVENT_WITHIN_MS,
  ): Promise<ChildLine> {
    return this.alive(
      new Promise<ChildLine>((resolve) => {
        const check = (): void => {
          const found = this.#lines.slice(from).find(matches);
          if (!found) return;
          this.#waiters.delete(check);
          resolve(found);
        };
        this.#waiters.add(check);
        check();
      }),
      what,
      within,
    );
  }

  /**
   * What `step` settles to, once the process is seen still answering; a failure naming the process's
   * death and its stderr when it is not (a crash), or naming `what` when `step` does not settle
   * within the bound.
   */
  async alive<T>(step: Promise<T>, what: string, within = EVENT_WITHIN_MS): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the server process did not show ${what} within ${within} ms`)),
        within,
      );
    });
    const died = this.exited.then((exit) => {
      throw new Error(`the server process exited (${JSON.stringify(exit)}) at ${what}:\n${this.#stderr}`);
    });
    died.catch(() => undefined);
    try {
      return await Promise.race([step, died, deadline]);
    } finally {
      clearTimeout(timer);
      // A stream that ends or a request that fails may be the process dying: it then refuses connections.
      if (this.#url !== "" && !(await this.#answers())) await died;
    }
  }

  /** Whether the process still answers HTTP at all (any status). */
  async #answers(): Promise<boolean> {
    try {
      const response = await fetch(this.#url, { method: "GET" });
      await response.body?.cancel();
      return true;
    } catch {
      return false;
    }
  }

  stderr(): string {
    return this.#stderr;
  }

  async stop(): Promise<void> {
    if (this.running) this.#child.kill("SIGKILL");
    await this.exited;
  }
}

function parseLine(raw: string): ChildLine {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as ChildLine;
  } catch {
    // Not a log line: kept as text.
  }
  return { msg: raw };
}
