import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PendingStore } from "./pending-store.js";
import { PendingTasks } from "./pending-tasks.js";

const TASK = {
  taskId: "bearer-capability",
  name: "release",
  status: "working" as const,
  statusMessage: "Building",
  pollIntervalMs: 500,
  ttlMs: 3_600_000,
  createdAt: "2026-12-07T10:00:00Z",
  lastUpdatedAt: "2026-12-07T10:00:01Z",
};

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

async function stores() {
  const home = await mkdtemp(join(tmpdir(), "roundtrip-tasks-"));
  homes.push(home);
  return { tasks: new PendingTasks(home), flows: new PendingStore(home) };
}

describe("the saved tasks", () => {
  it("keep each task in a 0600 file beside the saved flows, which never list it", async () => {
    const { tasks, flows } = await stores();
    await tasks.save({ id: "abcde12345", server: "https://mcp.example.com/mcp", task: TASK });
    expect(await readdir(tasks.dir)).toEqual(["abcde12345.task.json"]);
    expect((await stat(tasks.fileOf("abcde12345"))).mode & 0o777).toBe(0o600);
    expect(await flows.list()).toEqual([]);
    expect(await tasks.find("abcde12345")).toMatchObject({ id: "abcde12345", task: TASK });
    expect((await tasks.list()).map((task) => task.id)).toEqual(["abcde12345"]);
    await tasks.delete("abcde12345");
    expect(await tasks.find("abcde12345")).toBeUndefined();
  });

  it("refuse an id that is not one, and a file this version cannot read, saying what to do", async () => {
    const { tasks } = await stores();
    await expect(tasks.load("../../etc")).rejects.toThrow("`roundtrip tasks` lists them");
    await tasks.save({ id: "abcde12345", server: "https://mcp.example.com/mcp", task: TASK });
    await writeFile(tasks.fileOf("abcde12345"), "{not json");
    await expect(tasks.find("abcde12345")).rejects.toThrow(/is not a saved task this version can follow/);
    expect(await tasks.list()).toEqual([]);
  });
});
