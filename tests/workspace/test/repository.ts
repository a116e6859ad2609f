import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";

export const run = promisify(execFile);

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: { name: string; bin?: Record<string, string>; scripts?: Record<string, string> };
}

/** Every package of the workspace, as pnpm-workspace.yaml lists them, with its package.json. */
export async function workspacePackages(): Promise<WorkspacePackage[]> {
  const { packages } = parse(await readFile(join(repoRoot, "pnpm-workspace.yaml"), "utf8")) as {
    packages: string[];
  };
  const { stdout } = await run("git", ["ls-files", "--", ...packages.map((glob) => `${glob}/package.json`)], {
    cwd: repoRoot,
  });
  const manifests = stdout.split("\n").filter(Boolean);
  return Promise.all(
    manifests.map(async (path) => ({
      dir: join(repoRoot, path, ".."),
      manifest: JSON.parse(await readFile(join(repoRoot, path), "utf8")) as WorkspacePackage["manifest"],
    })),
  );
}

/** The files git tracks, relative to the repository root. */
export async function trackedFiles(): Promise<Set<string>> {
  const { stdout } = await run("git", ["ls-files", "-z"], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  return new Set(stdout.split("\0").filter(Boolean));
}
