import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { ensureTool, freePort, refusedPort } from "@roundtrip/test-services";

/** A KMS emulator endpoint for the duration of a test file. */
export interface MotoServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Generous: Python starts slowly on a busy CI machine; a ready server answers within a second. */
export const READY_WITHIN_MS = 180_000;
const POLL_EVERY_MS = 50;

/**
 * Uses MOTO_SERVER_URL when set (a running emulator); otherwise starts moto_server on a free port,
 * installing it first into the project's virtual environment when the machine has none.
 */
export async function startMotoServer(): Promise<MotoServer> {
  const external = process.env.MOTO_SERVER_URL;
  if (external) {
    await waitUntilReady(external, () => undefined);
    return { url: external.replace(/\/$/, ""), stop: async () => {} };
  }
  const binary = await ensureTool("moto_server");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(binary, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const failure = watchChild(child);
  await waitUntilReady(url, failure);
  return { url, stop: () => stopChild(child) };
}

/** Returns a function reporting why the child can no longer become ready, if it cannot. */
function watchChild(child: ChildProcess): () => string | undefined {
  let stderr = "";
  let reason: string | undefined;
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  child.on("error", (error: NodeJS.ErrnoException) => {
    reason = error.message;
  });
  child.on("exit", (code, signal) => {
    reason ??= `moto_server exited early (code ${code}, signal ${signal}): ${stderr.trim()}`;
  });
  return () => reason;
}

async function waitUntilReady(url: string, failure: () => string | undefined): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    const reason = failure();
    if (reason !== undefined) throw new Error(reason);
    if (await answers(url)) return;
    await delay(POLL_EVERY_MS);
  }
  throw new Error(`moto_server at ${url} did not answer within ${READY_WITHIN_MS} ms`);
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const forced = delay(5_000).then(() => child.kill("SIGKILL"));
  await Promise.race([exited, forced]);
  await exited;
}

export { freePort, refusedPort };
