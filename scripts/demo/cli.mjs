// Runs the real `roundtrip` CLI as a child process, the way a person would from the repository root.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));
const BIN = fileURLToPath(new URL("../../apps/client/dist/bin.js", import.meta.url));

const children = new Set();

/** Ends every CLI still running (each by its own pid): on failure, Ctrl+C or the end of the demo. */
export function stopChildren(signal = "SIGTERM") {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

/** How a command line is shown: the way a person would type it, quoting what needs it. */
export function commandLine(args) {
  const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  return ["roundtrip", ...args.map(quote)].join(" ");
}

/**
 * `roundtrip <args>`. Piped (the default), its output is echoed line by line through `echo` and kept,
 * and `watch` sees stderr as it arrives; `interactive` hands it this terminal instead (stdin, stdout
 * and stderr inherited), so a person answers its prompts and nothing is captured.
 */
export function runCli(args, { env, interactive = false, echo, watch, timeoutMs }) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPOSITORY,
    env,
    stdio: interactive ? "inherit" : ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  const lines = (take) => {
    let partial = "";
    return {
      push(chunk) {
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
  };
  const out = lines((line) => echo?.(line));
  const err = lines((line) => echo?.(line));
  child.stdout?.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
    out.push(chunk);
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    err.push(chunk);
    watch?.(stderr);
  });
  let timer;
  const exited = new Promise((resolve) => {
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
  let timedOut = false;
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
    }, timeoutMs);
  }
  return { child, exited };
}
