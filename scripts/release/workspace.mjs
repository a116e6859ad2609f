// What a release reads from the repository: the published packages in the order they must reach the
// registry, and the changesets waiting to be versioned.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The changesets folder's own files, which are not changesets. */
const NOT_CHANGESETS = new Set(["README.md"]);

export function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
}

/**
 * The packages of packages/ that are not private, each after the ones it depends on: a package must be
 * on the registry before one that needs it, or an install of the later one fails in between.
 */
export function publishedPackages(root) {
  const found = readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const dir = join("packages", entry.name);
      return { dir, manifest: readManifest(join(root, dir)) };
    })
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
  const names = new Set(found.map(({ manifest }) => manifest.name));
  const ordered = [];
  const placed = new Set();
  while (ordered.length < found.length) {
    const ready = found.find(
      ({ manifest }) =>
        !placed.has(manifest.name) &&
        Object.keys(manifest.dependencies ?? {}).every((dep) => !names.has(dep) || placed.has(dep)),
    );
    if (ready === undefined) throw new Error("the published packages depend on each other in a cycle");
    ordered.push(ready);
    placed.add(ready.manifest.name);
  }
  return ordered;
}

/** The file name `pnpm pack` gives a package's tarball. */
export function tarballName({ name, version }) {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * The changesets in `.changeset/`: each file's packages with their bumps, and the summary that goes into
 * their changelogs.
 */
export function pendingChangesets(root) {
  const dir = join(root, ".changeset");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && !NOT_CHANGESETS.has(file))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), "utf8");
      const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      if (match === null) throw new Error(`.changeset/${file} has no front matter between --- lines`);
      const releases = Object.fromEntries(
        match[1]
          .split("\n")
          .filter((line) => line.trim() !== "")
          .map((line) => {
            const release = /^\s*["']?([^"':]+)["']?\s*:\s*(patch|minor|major)\s*$/.exec(line);
            if (release === null) throw new Error(`.changeset/${file}: cannot read the release "${line}"`);
            return [release[1], release[2]];
          }),
      );
      return { file, releases, summary: match[2].trim() };
    });
}
