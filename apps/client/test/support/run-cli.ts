import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const APP_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** The CLI as a user runs it: the package's bin, built by the global setup (build-cli.ts). */
export const CLI_COMMAND = [process.execPath, join(APP_DIR, "dist", "bin.js")] as const;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, for --json runs. */
  json<T = Record<string, unknown>>(): T;
}

export async function newHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), "roundtrip-cli-"));
}

/** Writes an --answers file into the CLI home and returns its path. */
export async function writeAnswers(home: string, content: unknown): Promise<string> {
  const file = join(home, `answers-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(content));
  return file;
}

/** Signs the CLI home in as the development authorization server's machine client. */
export function loginAsMachine(server: string, home: string): Promise<CliRun> {
  return runCli(
    ["--server", server, "login", "--client-id", "mcp-machine", "--client-secret", "mcp-machine-secret"],
    { home },
  );
}

/** The environment every child gets: only what a CLI run needs, with no terminal and no colours. */
export function cliEnvironment(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    ROUNDTRIP_HOME: home,
    NO_COLOR: "1",
    ...extra,
  };
}

/** Runs `roundtrip <args>` as a child process with stdin closed, as a CI job would. */
export function runCli(
  args: readonly string[],
  options: { home: string; env?: Record<string, string>; cwd?: string },
): Promise<CliRun> {
  const [command, ...prefix] = CLI_COMMAND;
  const child = spawn(command, [...prefix, ...args], {
    cwd: options.cwd ?? APP_DIR,
    env: cliEnvironment(options.home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Decoded whole at the end: a character may arrive split across two chunks.
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      resolve({
        code,
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
  });
}
