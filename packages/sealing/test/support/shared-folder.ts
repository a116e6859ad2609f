import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The shared reference folder lives beside the repository (`<repo>/../shared`), wherever the
 * repository is checked out, so it is found from the workspace root rather than an absolute path.
 */
export function sharedFolder(): string {
  const root = workspaceRoot(dirname(fileURLToPath(import.meta.url)));
  const shared = join(root, "..", "shared");
  if (!existsSync(shared)) {
    throw new Error(
      `Roundtrip's shared reference folder is missing: expected it at ${shared}, beside the repository`,
    );
  }
  return shared;
}

function workspaceRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${start}`);
    dir = parent;
  }
  return dir;
}
