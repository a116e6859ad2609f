import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readResults, scenarioPassed, tally } from "../src/results.js";

/** The folder layout is the suite's; these tests pin how it is read back, for both legs. */

let dir: string | undefined;

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function writeChecks(root: string, folder: string, statuses: string[]): Promise<void> {
  await mkdir(join(root, folder), { recursive: true });
  const checks = statuses.map((status, index) => ({ id: `check-${index}`, name: `Check${index}`, status }));
  await writeFile(join(root, folder, "checks.json"), JSON.stringify(checks));
}

describe("readResults", () => {
  it("names server scenarios without the leg prefix and the timestamp", async () => {
    dir = await mkdtemp(join(tmpdir(), "roundtrip-results-"));
    await writeChecks(dir, "server-tools-list-2026-12-02T15-38-59-802Z", ["SUCCESS", "SUCCESS"]);
    await writeChecks(dir, "server-caching-2026-12-02T15-38-59-900Z", ["SUCCESS", "FAILURE", "WARNING"]);
    const results = await readResults(dir, "server");
    expect(results.map((result) => [result.scenario, scenarioPassed(result)])).toEqual([
      ["caching", false],
      ["tools-list", true],
    ]);
    expect(tally(results)).toEqual({
      scenariosPassed: 1,
      scenariosFailed: 1,
      checksPassed: 3,
      checksFailed: 1,
      warnings: 1,
    });
  });

  it("reads nested client scenarios and keeps only the latest run of each", async () => {
    dir = await mkdtemp(join(tmpdir(), "roundtrip-results-"));
    await writeChecks(dir, "auth/metadata-default-2026-12-02T10-00-00-000Z", ["FAILURE"]);
    await writeChecks(dir, "auth/metadata-default-2026-12-02T11-00-00-000Z", ["SUCCESS"]);
    await writeChecks(dir, "tools_call-2026-12-02T10-00-00-000Z", ["SUCCESS"]);
    const results = await readResults(dir, "client");
    expect(results.map((result) => [result.scenario, scenarioPassed(result)])).toEqual([
      ["auth/metadata-default", true],
      ["tools_call", true],
    ]);
  });

  it("rejects a checks.json whose statuses it does not know", async () => {
    dir = await mkdtemp(join(tmpdir(), "roundtrip-results-"));
    await writeChecks(dir, "server-ping-2026-12-02T10-00-00-000Z", ["MAYBE"]);
    await expect(readResults(dir, "server")).rejects.toThrow();
  });
});
