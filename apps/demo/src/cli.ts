// Runs the real `roundtrip` CLI as a child process, the way a person would from the repository root.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, three levels above both src/ and dist/ of apps/demo. */
export const REPOSITORY = fileURLToPath(new URL("../../..", import.meta.url));
/** The CLI's entry point, next to the entry point of the @roundtrip/client package. */
const BIN = join(dirname(createRequire(import.meta.url).resolve("@roundtrip/client")), "bin.js");
/** The CLI's entry point as a person at the repository root would type it. */
export const BIN_FROM_REPOSITORY = relative(REPOSITORY, BIN);

const children = new Set<ChildProcess>();

/** Ends every CLI still running (each by its own pid): on failure, Ctrl+C or the end of the demo. */
export function stopChildren(signal: NodeJS.Signals = "SIGTERM"): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

/** How a command line is shown: the way a person would type it, quoting what needs it. */
export function commandLine(args: readonly string[]): string {
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  return ["roundtrip", ...args.map(quote)].join(" ");
}

export interface CliOptions {
  env: NodeJS.ProcessEnv;
  /** Hands the CLI this terminal (stdin, stdout and stderr inherited): nothing is captured. */
  interactive?: boolean;
  /** Gets each line of output, stdout and stderr alike, as it arrives (piped runs only). */
  echo?: (line: string) => void;
  /** Sees the whole of stderr so far, each time more arrives (piped runs only). */
  watch?: (stderr: string) => void;
  /** Ends the CLI with SIGTERM after this long, and says so in the result. */
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface CliRun {
  child: ChildProcess;
  exited: Promise<CliResult>;
}

/** Splits a stream into lines for `take`, holding back a partial last line until more comes. */
function lines(take: (line: string) => void) {
  let partial = "";
  return {
    push(chunk: string) {
      partial += chunk;
      const complete = partial.split("\n");
      partial = complete.pop() ?? "";
      for (const line of complete) take(line);
    },
    flush() {
      if (partial !== "") take(partial);
      partial = "";
    },
  };
}

/**
 * `roundtrip <args>`. Piped (the default), its output is echoed line by line through `echo` and kept,
 * and `watch` sees stderr as it arrives; `interactive` hands it this terminal instead (stdin, stdout
 * and stderr inherited), so a person answers its prompts and nothing is captured.
 */
export function runCli(
  args: readonly string[],
  { env, interactive = false, echo, watch, timeoutMs }: CliOptions,
): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPOSITORY,
    env,
    stdio: interactive ? "inherit" : ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  let timedOut = false;
  const out = lines((line) => echo?.(line));
  const err = lines((line) => echo?.(line));
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    out.push(chunk);
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    err.push(chunk);
    watch?.(stderr);
  });
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<CliResult>((resolve) => {
    child.on("error", (error) => {
      stderr += `\n${error.message}`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      out.flush();
      err.flush();
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
    }, timeoutMs);
  }
  return { child, exited };
}
