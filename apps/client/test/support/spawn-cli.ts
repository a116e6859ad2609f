import { type ChildProcess, spawn } from "node:child_process";
import { APP_DIR, CLI_COMMAND, cliEnvironment } from "./run-cli.js";

/** A CLI process the test talks to while it runs: its stderr is watched for lines. */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stderr match, or rejects if the process ends first. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

export function spawnCli(
  args: readonly string[],
  options: { home: string; env?: Record<string, string> },
): LiveCli {
  const [command, ...prefix] = CLI_COMMAND;
  const child = spawn(command, [...prefix, ...args], {
    cwd: APP_DIR,
    env: cliEnvironment(options.home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
    for (const waiter of [...waiters]) {
      const match = err.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStderr(pattern) {
      const match = err.match(pattern);
      if (match) return Promise.resolve(match);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then((code) =>
          reject(new Error(`the CLI exited (${code}) before printing ${pattern}:\n${err}`)),
        );
      });
    },
  };
}
