import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/** Resolves once `child` has exited, at once if it already has. */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Ends `child` with SIGKILL together with every process it forked (Redis's AOF rewrite and RDB save),
 * as the crash of their host does, and waits for `child` to exit. Killed alone, a server leaves its
 * fork running, writing into its folder after a test has removed it, until the fork next reports to
 * its parent and finds it gone. The server is stopped first so that it forks nothing more while its
 * forks are looked for; it stays in its caller's process group, so an interrupted run still ends it.
 */
export async function killWithForks(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = exitOf(child);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGSTOP");
    await stoppedOrGone(pid);
    for (const fork of await forksOf(pid)) {
      try {
        process.kill(fork, "SIGKILL");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    child.kill("SIGKILL");
  }
  await exited;
}

/** The state letter (R, S, D, T, Z...) and parent of process `pid`, or undefined once it is gone. */
async function stateOf(pid: number): Promise<{ state: string; ppid: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return undefined;
  // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
  const [state = "", ppid = ""] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid) };
}

// SIGSTOP takes effect when the kernel next schedules the process, which kill() does not wait for.
async function stoppedOrGone(pid: number): Promise<void> {
  for (;;) {
    const state = (await stateOf(pid))?.state;
    if (state === undefined || state === "T" || state === "t" || state === "Z" || state === "X") return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** The processes `parent` forked that still run (a zombie runs nothing and holds no file). */
export async function forksOf(parent: number): Promise<number[]> {
  const forks: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const found = await stateOf(Number(entry));
    if (found?.ppid === parent && found.state !== "Z") forks.push(Number(entry));
  }
  return forks;
}
