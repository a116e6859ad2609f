import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureTool, freePort } from "@roundtrip/test-services";
import { nginxConfig } from "./nginx-config.js";

const READY_WITHIN_MS = 20_000;
const STOP_WITHIN_MS = 5_000;

export interface RunningProxy {
  pid: number;
  port: number;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * nginx in the foreground, balancing `upstreams` round-robin on a fresh loopback port, with its
 * configuration in a temporary folder removed on stop. `cpu` pins it (taskset).
 */
export async function startProxy(
  upstreams: readonly number[],
  options: { keepalive: number; cpu?: number },
): Promise<RunningProxy> {
  const binary = await ensureTool("nginx");
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-bench-nginx-"));
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  await writeFile(conf, nginxConfig({ dir, port, upstreams, keepalive: options.keepalive }));
  // -e: the error log before the configuration is read, which would otherwise be a system path.
  const argv = ["-p", dir, "-e", "stderr", "-c", conf];
  const [command, args] =
    options.cpu === undefined ? [binary, argv] : ["taskset", ["-c", String(options.cpu), binary, ...argv]];
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString("utf8");
  });
  const gone = exited(child);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const forced = setTimeout(() => child.kill("SIGKILL"), STOP_WITHIN_MS);
    await gone;
    clearTimeout(forced);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline || child.pid === undefined) {
      await stop();
      throw new Error(`nginx did not listen on ${port}: ${errors.trim() || "no output"}`);
    }
    await delay(20);
  }
  return { pid: child.pid ?? 0, port, stop };
}
