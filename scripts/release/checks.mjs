// What the dry run holds a release to before it says it is right: the versions and changelogs that
// `changeset version` wrote, the tarballs pnpm packed from them, and what provenance needs.

/** The lines of `after` that `before` does not have, in order: what versioning added to a changelog. */
export function addedLines(before, after) {
  const left = new Map();
  for (const line of before.split("\n")) left.set(line, (left.get(line) ?? 0) + 1);
  return after
    .split("\n")
    .filter((line) => {
      const count = left.get(line) ?? 0;
      if (count === 0) return true;
      left.set(line, count - 1);
      return false;
    })
    .join("\n");
}

function isLater(to, from) {
  const [a, b] = [to, from].map((version) => version.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

/**
 * Every problem with a versioned and packed release, as sentences: a changeset whose package was not
 * bumped or whose text its changelog lacks, a tarball whose version or dependencies are not the
 * released ones, a tarball without the dist/ its exports name.
 */
export function checkVersioned(changesets, versioned, planned) {
  const problems = [];
  const byName = new Map(versioned.map((pkg) => [pkg.name, pkg]));
  const plannedByName = new Map(planned.map((pkg) => [pkg.name, pkg]));
  for (const { file, releases, summary } of changesets) {
    for (const name of Object.keys(releases)) {
      const pkg = byName.get(name);
      if (pkg === undefined) {
        problems.push(`.changeset/${file} names ${name}, which is not a published package`);
        continue;
      }
      if (!isLater(pkg.to, pkg.from))
        problems.push(`${name} stays at ${pkg.to} although .changeset/${file} bumps it`);
      const added = plannedByName.get(name).changelogAdded;
      const missing = summary
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "" && !added.includes(line));
      if (missing.length > 0)
        problems.push(`${name}'s CHANGELOG would lack the text of .changeset/${file}: "${missing[0]}"`);
    }
  }
  for (const { name, to, manifest, publish } of planned) {
    if (manifest.version !== to)
      problems.push(`${name}'s tarball holds version ${manifest.version}, not ${to}`);
    if (JSON.stringify(manifest).includes("workspace:"))
      problems.push(`${name}'s tarball still names a workspace: range`);
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      const released = byName.get(dependency)?.to;
      if (released !== undefined && range.replace(/^[\^~]/, "") !== released) {
        problems.push(
          `${name} would depend on ${dependency}@${range}, not on the ${released} released with it`,
        );
      }
    }
    const files = new Set(publish.files);
    const unshipped = Object.values(manifest.exports ?? {})
      .map((entry) => entry.default.replace(/^\.\//, ""))
      .filter((file) => !files.has(file));
    if (!publish.files.some((file) => file.startsWith("dist/")))
      problems.push(`${name}'s tarball has no dist/`);
    else if (unshipped.length > 0) problems.push(`${name}'s tarball lacks ${unshipped.join(", ")}`);
  }
  return problems;
}

/**
 * Why the registry would refuse a package's provenance: it compares package.json's repository.url with
 * the GitHub repository that ran the workflow (GITHUB_REPOSITORY in Actions), and rejects a package that
 * names none or another.
 */
export function provenanceBlockers(manifests, githubRepository) {
  return manifests.flatMap(({ name, repository }) => {
    const url = typeof repository === "string" ? repository : repository?.url;
    if (url === undefined) {
      return [
        `${name}'s package.json has no repository.url; add the GitHub repository's URL (with directory) there`,
      ];
    }
    if (githubRepository && !url.includes(`github.com/${githubRepository}`)) {
      return [`${name}'s repository.url is ${url}, but the workflow runs in github.com/${githubRepository}`];
    }
    return [];
  });
}
