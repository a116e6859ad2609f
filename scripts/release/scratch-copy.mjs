// A copy of what a release reads and writes (the root manifest, the changesets, the published packages
// with their built dist/), so the dry run can version and pack it without touching the repository.
import { cpSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** The root files that versioning (changesets) and packing (pnpm, the prepack check, LICENSE) read. */
const ROOT_FILES = [
  "package.json",
  "pnpm-workspace.yaml",
  "LICENSE",
  ".changeset",
  "scripts/require-built.mjs",
];

/**
 * Copies the release's inputs from `root` into `into`, and links each published package's workspace
 * dependencies: pnpm pack reads a `workspace:` dependency's version from the linked package, so the
 * published ones point at their copies (with the versions the dry run writes), and the rest (test
 * fixtures among the devDependencies) at the repository's.
 */
export function copyForRelease(root, into, packages) {
  for (const file of ROOT_FILES) cpSync(join(root, file), join(into, file), { recursive: true });
  const copies = new Map(packages.map(({ dir, manifest }) => [manifest.name, join(into, dir)]));
  for (const { dir } of packages) {
    cpSync(join(root, dir), join(into, dir), {
      recursive: true,
      filter: (source) => !relative(join(root, dir), source).split("/").includes("node_modules"),
    });
  }
  for (const { dir, manifest } of packages) {
    const ranges = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
    for (const [name, range] of Object.entries(ranges)) {
      if (!String(range).startsWith("workspace:")) continue;
      const link = join(into, dir, "node_modules", name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(copies.get(name) ?? realpathSync(join(root, dir, "node_modules", name)), link);
    }
  }
}
