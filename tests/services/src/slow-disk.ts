/**
 * A Redis whose disk is slow to sync, made so in place: strace, attached to every thread of the
 * running process, holds each `fsync` and `fdatasync` for a while before the kernel runs it, as a busy
 * or networked volume does. Nothing else of the process changes: it keeps its port, its clients and
 * its data, and writes reach the kernel at once; only the sync that makes them durable lags.
 *
 * This is how a test opens, on demand, the window in which `appendfsync everysec` acknowledges writes
 * it holds only in memory (Redis postpones its write while a background sync lags, for up to 2 s).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { ensureTool } from "./ensure-tool.js";

export interface SlowDisk {
  /** Detaches: syncs run at the disk's own speed again. Harmless once the server has exited. */
  end(): Promise<void>;
}

/**
 * Every sync of process `pid` (a running server's, e.g. `RedisServer.pid`) from now on waits `delayMs`
 * first, until `end()` or the process exits.
 */
export async function slowDisk(pid: number, delayMs: number): Promise<SlowDisk> {
  if (!Number.isInteger(delayMs) || delayMs < 1) {
    throw new RangeError(`delayMs must be a whole number of milliseconds >= 1, got ${delayMs}`);
  }
  const strace = await ensureTool("strace");
  const syncs = "fsync,fdatasync";
  const child = spawn(
    strace,
    [
      ...["-qq", "-f", "-p", String(pid), "-o", "/dev/null"],
      ...["-e", `trace=${syncs}`, "-e", `inject=${syncs}:delay_enter=${delayMs * 1000}`],
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let said = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    said = (said + chunk.toString("utf8")).slice(-1000);
  });
  let failed: Error | undefined;
  child.once("error", (error) => {
    failed = error;
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const end = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    // A tracer stuck in a delayed sync may take that long to see SIGTERM; past it, SIGKILL.
    const late = setTimeout(() => child.kill("SIGKILL"), delayMs + 5_000);
    await exited.finally(() => clearTimeout(late));
  };
  try {
    await attached(child, pid, () => failed?.message ?? said);
  } catch (error) {
    await end();
    throw error;
  }
  return { end };
}

/** Waits until strace traces every thread of `pid` (each one's TracerPid names it), or says why not. */
async function attached(child: ChildProcess, pid: number, said: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw await whyNot(pid, said());
    if (await tracedBy(pid, child.pid)) return;
    if (Date.now() > deadline)
      throw new Error(`strace had not attached to every thread of ${pid} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Why strace could not attach, from what it said and what the kernel says of the process. */
async function whyNot(pid: number, said: string): Promise<Error> {
  const told = said.trim() || "it said nothing";
  if (/No such process/.test(said))
    return new Error(`process ${pid} exited before strace could attach to it (${told})`);
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const tracer = /^TracerPid:\s*(\d+)$/m.exec(status)?.[1];
  if (tracer !== undefined && tracer !== "0") {
    return new Error(
      `process ${pid} is already traced by process ${tracer}, and a process has one tracer at a time: end that one first`,
    );
  }
  const scope = (await readFile("/proc/sys/kernel/yama/ptrace_scope", "utf8").catch(() => "")).trim();
  const yama =
    scope !== "" && scope !== "0"
      ? ` The kernel lets only a parent trace its children (kernel.yama.ptrace_scope=${scope}): run the tests as root, or set it to 0 with sysctl.`
      : "";
  return new Error(
    `strace could not attach to process ${pid}: ${told}. Attaching needs ptrace:${yama} a container needs CAP_SYS_PTRACE and a seccomp profile that allows ptrace.`,
  );
}

async function tracedBy(pid: number, tracer: number | undefined): Promise<boolean> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => []);
  if (threads.length === 0 || tracer === undefined) return false;
  const statuses = await Promise.all(
    threads.map((thread) => readFile(`/proc/${pid}/task/${thread}/status`, "utf8").catch(() => "")),
  );
  return statuses.every((status) => new RegExp(`^TracerPid:\\s*${tracer}$`, "m").test(status));
}
