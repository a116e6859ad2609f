import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./repository.js";

const run = promisify(execFile);
const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** Writes the given reports (path under the folder -> JSON) and runs the counter the CI script runs. */
async function count(reports: Record<string, unknown>, statuses: string[] = []): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-results-"));
  scratch.push(dir);
  for (const [name, report] of Object.entries(reports)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), JSON.stringify(report));
  }
  const { stdout } = await run(
    process.execPath,
    [join(repoRoot, ".ci/count-results.mjs"), dir, ...statuses],
    {
      cwd: repoRoot,
    },
  );
  return stdout;
}

const sdkFile = join(repoRoot, "packages/sdk/test/example.test.ts");

describe("the CI run's closing count", () => {
  it("sums every line's reports, and names each failed test with the first lines of its reason at the end", async () => {
    const out = await count({
      "node-a/sdk.json": {
        numPassedTests: 2,
        numFailedTests: 1,
        testResults: [
          {
            name: sdkFile,
            status: "failed",
            startTime: 0,
            endTime: 1500,
            assertionResults: [
              { status: "passed", fullName: "keeps a round" },
              {
                status: "failed",
                fullName: "tasks outlive a round",
                failureMessages: [
                  "\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at one\n    at two",
                ],
              },
            ],
          },
        ],
      },
      "node-b/sdk.json": { numPassedTests: 3, numFailedTests: 0, testResults: [] },
    });
    const lines = out.trim().split("\n");
    expect(lines.at(-1)).toBe("5 passed, 1 failed, 0 skipped");
    const named = lines.indexOf("failed tests:");
    expect(named).toBeGreaterThan(lines.indexOf("slowest test files:"));
    expect(lines[named + 1]).toBe("  packages/sdk/test/example.test.ts (node-a/sdk): tasks outlive a round");
    expect(lines[named + 2]).toBe("      AssertionError: expected 1 to be 2");
    expect(out).not.toContain("\u001b");
  });

  it("counts a file that failed before its tests ran, and an error caught outside any test", async () => {
    const out = await count({
      "node-a/server.json": {
        numPassedTests: 0,
        numFailedTests: 0,
        testResults: [
          { name: sdkFile, status: "failed", message: "Cannot find module x", assertionResults: [] },
        ],
      },
      "node-a/server.unhandled-errors.json": { unhandledErrors: ["Error: late rejection"] },
    });
    expect(out).toContain("node-a/server: unhandled error outside any test: Error: late rejection");
    expect(out.slice(out.indexOf("failed tests:"))).toContain("(node-a/server): an error outside any test");
    expect(out).toContain("packages/sdk/test/example.test.ts (node-a/server): (outside any test)");
    expect(out).toContain("      Cannot find module x");
    expect(out.trim().split("\n").at(-1)).toBe("0 passed, 2 failed, 0 skipped");
  });

  it("a run that exited non-zero with every test passed counts once, so the line cannot read green", async () => {
    const reports = { "node-a/sdk.json": { numPassedTests: 4, numFailedTests: 0, testResults: [] } };
    expect((await count(reports, ["node-a=0"])).trim().split("\n").at(-1)).toBe(
      "4 passed, 0 failed, 0 skipped",
    );
    const out = await count(reports, ["node-a=1"]);
    expect(out).toContain("node-a: exited with status 1 though no test of it failed");
    expect(out.trim().split("\n").at(-1)).toBe("4 passed, 1 failed, 0 skipped");
  });

  it("names a crashed run beside the closing line even when another run failed tests", async () => {
    const out = await count(
      {
        "node-a/sdk.json": {
          numPassedTests: 1,
          numFailedTests: 1,
          testResults: [
            {
              name: sdkFile,
              status: "failed",
              assertionResults: [{ status: "failed", fullName: "a test", failureMessages: ["Error: no"] }],
            },
          ],
        },
        "node-b/sdk.json": { numPassedTests: 4, numFailedTests: 0, testResults: [] },
      },
      ["node-a=1", "node-b=1"],
    );
    const tail = out.slice(out.indexOf("failed tests:"));
    expect(tail).toContain("(node-a/sdk): a test");
    expect(tail).toContain("(node-b): the run itself");
    expect(tail).not.toContain("(node-a): the run itself");
    expect(out.trim().split("\n").at(-1)).toBe("5 passed, 2 failed, 0 skipped");
  });
});
