import { readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, run, trackedFiles, workspacePackages } from "./repository.js";

describe("a clone stands alone", () => {
  it("reads nothing beside the repository: no tracked file but prose names the reference folder beside it", async () => {
    // git grep exits 1 when nothing matches, which is the passing case.
    const found = await run("git", ["grep", "-n", "-e", "\\.\\./shared", "--", ":!*.md"], {
      cwd: repoRoot,
    }).then(
      ({ stdout }) => stdout,
      (error: { code?: number; stdout?: string }) => {
        if (error.code === 1) return "";
        throw error;
      },
    );
    expect(found).toBe("");
  });
});

describe("the packages' commands", () => {
  it("are tracked, executable files with a shebang, so pnpm links them when it installs, before any build", async () => {
    const tracked = await trackedFiles();
    const bins = (await workspacePackages()).flatMap(({ dir, manifest }) =>
      Object.entries(manifest.bin ?? {}).map(([name, path]) => ({
        name,
        file: relative(repoRoot, join(dir, path)),
      })),
    );
    expect(bins.map(({ name }) => name).sort()).toEqual([
      "roundtrip",
      "roundtrip-kms-keygen",
      "roundtrip-local-auth",
    ]);
    for (const { name, file } of bins) {
      expect(tracked.has(file), `${name} -> ${file} is not a tracked file`).toBe(true);
      expect((await stat(join(repoRoot, file))).mode & 0o111, `${file} is not executable`).not.toBe(0);
      expect(await readFile(join(repoRoot, file), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    }
  });

  // The workspace was installed before it was built, as on a fresh clone: these run only if pnpm linked them then.
  it.each([
    ["apps/server", "roundtrip-kms-keygen", /^Usage: roundtrip-kms-keygen --key-id/],
    ["tests/workspace", "roundtrip", /roundtrip/],
    ["tests/workspace", "roundtrip-local-auth", /roundtrip-local-auth|usage/i],
  ])("in %s, pnpm exec %s --help works after the documented install and build", async (dir, bin, usage) => {
    const { stdout, stderr } = await run("pnpm", ["exec", bin, "--help"], { cwd: join(repoRoot, dir) });
    expect(`${stdout}${stderr}`).toMatch(usage);
  });
});
