import type { ChildProcess } from "node:child_process";

const running = new Set<ChildProcess>();

/**
 * Tests stop what they start in afterAll, even when a test fails. This covers the one case afterAll
 * cannot: the test process itself exiting early (an interrupted run), which must not leave servers
 * and nginx listening behind it.
 */
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Kills `child` if this process exits while it still runs. */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
}
