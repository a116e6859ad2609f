import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { withInstallLock } from "../src/install-lock.js";

const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

it("lets one holder in at a time and releases the lock when the work fails", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "roundtrip-lock-"));
  scratch.push(stateDir);
  const events: string[] = [];
  const hold = (name: string, fail = false) =>
    withInstallLock(stateDir, async () => {
      events.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push(`${name} out`);
      if (fail) throw new Error(`${name} failed`);
    });
  const results = await Promise.allSettled([hold("a", true), hold("b"), hold("c")]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
  for (let i = 0; i < events.length; i += 2) {
    expect(events[i + 1]).toBe(events[i]!.replace(" in", " out"));
  }
  await expect(stat(join(stateDir, "install.lock"))).rejects.toThrow();
});

it("takes over a lock whose owner is gone", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "roundtrip-lock-"));
  scratch.push(stateDir);
  const gone = spawnSync(process.execPath, [
    "-e",
    "process.stdout.write(String(process.pid))",
  ]).stdout.toString();
  await mkdir(join(stateDir, "install.lock"));
  await writeFile(join(stateDir, "install.lock", "pid"), gone);
  await expect(withInstallLock(stateDir, async () => "ran")).resolves.toBe("ran");
});
