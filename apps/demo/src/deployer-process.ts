// The downstream deployer API of the reference server's deploy tool, in a process of its own as it
// would run beside a real server: it accepts only tokens of the demo's authorization server whose
// audience is its own name, which the reference server gets by exchanging its caller's token.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

/** The deployer's name at the authorization server: the audience of the tokens it accepts. */
export const DEPLOYER_AUDIENCE = "https://deployer.roundtrip.demo";

/** Generous: a first start on a busy machine loads the server's modules cold. */
const STARTUP_TIMEOUT_MS = 60_000;

export interface DeployerProcess {
  url: string;
  close(): Promise<void>;
}

/** `dist/deployer/main.js` of the reference server's package, beside its entry point. */
function deployerMain(): string {
  const entry = createRequire(import.meta.url).resolve("@roundtrip/server");
  return join(dirname(entry), "deployer", "main.js");
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Stops the child and waits for it: one killed by a signal has no exit code, only a signal code. */
async function stop(child: ChildProcess): Promise<void> {
  if (!running(child)) return;
  const gone = once(child, "exit");
  child.kill("SIGTERM");
  await gone;
}

/** The deployer's URL from the first line it prints, a JSON object `{ "deployer": url }`. */
function announcedUrl(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`the deployer process printed ${JSON.stringify(line.slice(0, 200))} instead of its URL`);
  }
  const url = (parsed as { deployer?: unknown } | null)?.deployer;
  if (typeof url !== "string") {
    throw new Error(`the deployer process printed ${JSON.stringify(line.slice(0, 200))} without its URL`);
  }
  return url;
}

export async function startDeployerProcess(issuer: string): Promise<DeployerProcess> {
  const child: ChildProcess = spawn(process.execPath, [deployerMain()], {
    env: { ...process.env, OAUTH_ISSUER: issuer, DEPLOYER_AUDIENCE, DEPLOYER_PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(([code, signal]) => {
    throw new Error(
      `the deployer process exited (${signal === null ? `code ${String(code)}` : String(signal)}) before it listened`,
    );
  });
  // Handled at once: it rejects whenever the child ends, long after startup too.
  exited.catch(() => {});
  const lines = createInterface({ input: child.stdout! });
  const first = once(lines, "line").then(([line]) => announcedUrl(String(line)));
  first.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the deployer process did not print its URL within ${STARTUP_TIMEOUT_MS / 1000} s; run \`pnpm --filter @roundtrip/server build\` and look at its output above`,
          ),
        ),
      STARTUP_TIMEOUT_MS,
    );
  });
  let url: string;
  try {
    url = await Promise.race([first, exited, timeout]);
  } catch (error) {
    await stop(child);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { url, close: () => stop(child) };
}
