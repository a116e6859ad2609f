import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Leg, readResults, type ScenarioResult } from "./results.js";

export * from "./results.js";

/**
 * Runs the pinned official conformance CLI (@modelcontextprotocol/conformance, a devDependency of this
 * package) on the Node that runs the suite: the CLI needs Node 22 or later (it imports fs.globSync),
 * which is Roundtrip's own floor.
 */

const require = createRequire(import.meta.url);

export function conformanceEntry(): string {
  const manifest = require.resolve("@modelcontextprotocol/conformance/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  const entry = bin.conformance;
  if (!entry) throw new Error(`${manifest} declares no "conformance" bin`);
  return join(dirname(manifest), entry);
}

export interface CliOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Copies the CLI's output to this process's stdout and stderr as it arrives. */
  echo?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
}

/** Runs the CLI with `args` (e.g. `["list", "--requirements", "2026-07-28"]`) and collects its output. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [conformanceEntry(), ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      signal: options.signal,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
      if (options.echo) process.stderr.write(chunk);
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      resolve({
        // A run killed by a signal has no exit code; it certainly did not pass.
        exitCode: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
  });
}

export interface ConformanceRun extends CliOutput {
  /** The `-o` folder the scenario results were written to. */
  outputDir: string;
  scenarios: ScenarioResult[];
}

export interface ConformanceOptions extends CliOptions {
  /** Where results go; a fresh temporary folder when absent (ignored when `args` already has `-o`). */
  outputDir?: string;
}

function outputDirIn(args: readonly string[]): string | undefined {
  const index = args.findIndex((arg) => arg === "-o" || arg === "--output-dir");
  return index >= 0 ? args[index + 1] : undefined;
}

/**
 * Runs `conformance server|client|authorization …` and reads back every scenario's checks. `args[0]`
 * is the subcommand; an `-o` folder is added when `args` has none.
 */
export async function runConformance(
  args: readonly string[],
  options: ConformanceOptions = {},
): Promise<ConformanceRun> {
  const leg = args[0];
  if (leg !== "server" && leg !== "client" && leg !== "authorization") {
    throw new Error(`runConformance runs the server, client or authorization subcommand, not "${leg}"`);
  }
  let outputDir = outputDirIn(args);
  const fullArgs = [...args];
  if (outputDir === undefined) {
    outputDir = options.outputDir ?? (await mkdtemp(join(tmpdir(), `roundtrip-conformance-${leg}-`)));
    fullArgs.push("-o", outputDir);
  }
  const output = await runCli(fullArgs, options);
  const scenarios = await readResults(outputDir, leg satisfies Leg);
  return { ...output, outputDir, scenarios };
}
