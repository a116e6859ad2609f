import { execFile } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { APP_DIR } from "./run-cli.js";

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestSource(path) : (await stat(path)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/ to dist/ with the package's own build configuration before any suite starts, unless
 * dist/ is already newer than every source file (CI builds the workspace before it tests).
 */
export default async function buildCli(): Promise<void> {
  const built = await stat(join(APP_DIR, "dist", "bin.js")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const sources = Math.max(
    await newestSource(join(APP_DIR, "src")),
    (await stat(join(APP_DIR, "package.json"))).mtimeMs,
  );
  if (built > sources) return;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  await promisify(execFile)(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: APP_DIR });
}
