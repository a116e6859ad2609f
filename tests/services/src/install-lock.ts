import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/** An apt-get or pip install of a missing tool takes a minute or two on a slow mirror. */
const WAIT_AT_MOST_MS = 15 * 60_000;
const POLL_EVERY_MS = 250;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Runs `work` while holding a lock shared by every process of the test run. Turborepo runs the
 * suites in parallel, and two of them installing at once would collide on dpkg's lock or on one
 * half-built virtual environment. The lock is a directory (mkdir is atomic) holding its owner's pid,
 * so a lock left by a killed run is taken over instead of waited on.
 */
export async function withInstallLock<T>(stateDir: string, work: () => Promise<T>): Promise<T> {
  await mkdir(stateDir, { recursive: true });
  const lock = join(stateDir, "install.lock");
  const deadline = Date.now() + WAIT_AT_MOST_MS;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(await readFile(join(lock, "pid"), "utf8").catch(() => ""));
      if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `another test run has been installing tools for 15 minutes; if none is, remove ${lock}`,
        );
      }
      await delay(POLL_EVERY_MS);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
