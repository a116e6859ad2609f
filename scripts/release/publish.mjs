// `pnpm release:publish`: publishes the versions main holds, as the release workflow runs it once the
// "Version packages" pull request is merged. It builds and packs both packages (`pnpm pack:release`)
// and publishes the tarballs with provenance, each package after the ones it depends on, skipping a
// version the registry has already. It refuses while changesets are pending: those are released by
// versioning them first, never published under the versions they would bump.
//
// `pnpm release:publish --dry-run [--out DIR] [--built]` shows what the next release would be without
// touching the repository or the registry: in a copy (DIR, or a temporary folder it removes) it runs
// `changeset version`, checks the versions and changelogs that writes, packs the copy and runs
// `npm publish --dry-run` on each tarball; DIR/release-plan.json records all of it. --built uses the
// dist/ already built instead of building first.
//
// Plain JavaScript, like the other root scripts: it runs with nothing but Node and the installed tools.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { addedLines, checkVersioned, provenanceBlockers } from "./checks.mjs";
import { isPublished, publish, run } from "./npm.mjs";
import { copyForRelease } from "./scratch-copy.mjs";
import { pendingChangesets, publishedPackages, readManifest, tarballName } from "./workspace.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
/**
 * Set by GitHub Actions and the changesets action: the repository the workflow runs in, and the file
 * that action reads the published packages' tags from. Neither is a turbo task's input.
 */
const { CHANGESETS_OUTPUT, GITHUB_REPOSITORY } = process.env;

function fail(message) {
  process.stderr.write(`release:publish: ${message}\n`);
  process.exit(1);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      "dry-run": { type: "boolean", default: false },
      out: { type: "string" },
      built: { type: "boolean", default: false },
    },
    strict: true,
  }));
} catch (error) {
  fail(`${error.message}; usage: pnpm release:publish [--dry-run [--out DIR] [--built]]`);
}
if ((options.out !== undefined || options.built) && !options["dry-run"]) {
  fail("--out and --built are for --dry-run only: a release always builds what it publishes");
}

/** The packed tarball of a package at the version its manifest in `dir` holds. */
function tarballOf(base, { dir }) {
  const manifest = readManifest(join(base, dir));
  return { name: manifest.name, version: manifest.version, tarball: join("release", tarballName(manifest)) };
}

/** The manifest inside a tarball, as the registry would store it. */
function packedManifest(base, tarball) {
  return JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], { cwd: base }).stdout);
}

/** Tells the changesets action which tags to push and which GitHub releases to write. */
function announce({ name, version }) {
  const tag = `${name}@${version}`;
  console.log(`New tag: ${tag}`);
  if (CHANGESETS_OUTPUT) {
    appendFileSync(CHANGESETS_OUTPUT, `${JSON.stringify({ type: "git-tag", tag, packageName: name })}\n`);
  }
}

function release() {
  const pending = pendingChangesets(root);
  if (pending.length > 0) {
    fail(
      `${pending.length} changeset(s) are pending (${pending.map(({ file }) => file).join(", ")}): they are released by merging the "Version packages" pull request, which versions them (\`pnpm changeset version\`), not published under today's versions; \`pnpm release:publish --dry-run\` shows what that release would be`,
    );
  }
  const packages = publishedPackages(root);
  const blockers = provenanceBlockers(
    packages.map(({ manifest }) => manifest),
    GITHUB_REPOSITORY,
  );
  if (blockers.length > 0) fail(`the registry would refuse the provenance: ${blockers.join("; ")}`);
  run("pnpm", ["pack:release"], { cwd: root });
  for (const pkg of packages) {
    const packed = tarballOf(root, pkg);
    if (isPublished(packed, { cwd: root })) {
      console.log(`${packed.name}@${packed.version} is on the registry already: skipped`);
      continue;
    }
    publish(packed.tarball, { cwd: root, dryRun: false });
    console.log(`published ${packed.name}@${packed.version} with provenance`);
    announce(packed);
  }
}

/**
 * Whether the registry has the version, or null when it cannot be asked: npm publish --dry-run works
 * without the registry, and so does the dry run, saying what it could not find out.
 */
function publishedOrUnknown(packed, cwd) {
  try {
    return isPublished(packed, { cwd });
  } catch (error) {
    console.warn(
      `release:publish: ${error.message.split("\n")[0]}; the plan cannot say whether it would be skipped`,
    );
    return null;
  }
}

function dryRun() {
  const keep = options.out !== undefined;
  const base = keep ? resolve(options.out) : mkdtempSync(join(tmpdir(), "roundtrip-release-"));
  if (keep) {
    if (existsSync(base) && readdirSync(base).length > 0)
      fail(`--out ${base} is not empty; name a new or empty folder`);
    mkdirSync(base, { recursive: true });
  }
  try {
    const changesets = pendingChangesets(root);
    const packages = publishedPackages(root);
    // The same build and pack a release runs, on today's versions: it fails here if they do not build.
    // --built skips it for a caller that has just built them (a test under turbo, which must not have
    // a nested build rewrite dist/ while other suites read it); the copy's prepack still refuses a
    // package without dist/.
    if (!options.built) run("pnpm", ["pack:release"], { cwd: root });
    copyForRelease(root, base, packages);
    run(join(root, "node_modules", ".bin", "changeset"), ["version"], { cwd: base });
    const versioned = packages.map(({ dir, manifest }) => ({
      name: manifest.name,
      dir,
      from: manifest.version,
      to: readManifest(join(base, dir)).version,
      changelogBefore: existsSync(join(root, dir, "CHANGELOG.md"))
        ? readFileSync(join(root, dir, "CHANGELOG.md"), "utf8")
        : "",
      changelog: readFileSync(join(base, dir, "CHANGELOG.md"), "utf8"),
    }));
    run("pnpm", ["pack:built"], { cwd: base });
    const planned = versioned.map((pkg) => {
      const packed = tarballOf(base, pkg);
      return {
        name: pkg.name,
        from: pkg.from,
        to: pkg.to,
        changelogAdded: addedLines(pkg.changelogBefore, pkg.changelog),
        tarball: packed.tarball,
        manifest: packedManifest(base, packed.tarball),
        alreadyPublished: publishedOrUnknown(packed, base),
        publish: publish(packed.tarball, { cwd: base, dryRun: true }),
      };
    });
    const problems = checkVersioned(changesets, versioned, planned);
    const plan = {
      dryRun: true,
      changesets: changesets.map(({ file, releases }) => ({ file, releases })),
      packages: planned,
      provenance: {
        requested: planned.every(({ publish: { args } }) => args.includes("--provenance")),
        blockers: provenanceBlockers(
          planned.map(({ manifest }) => manifest),
          GITHUB_REPOSITORY,
        ),
      },
      problems,
    };
    writeFileSync(join(base, "release-plan.json"), `${JSON.stringify(plan, null, 2)}\n`);
    for (const pkg of planned) {
      console.log(
        `${pkg.name}: ${pkg.from} -> ${pkg.to}${pkg.alreadyPublished ? " (on the registry already: would be skipped)" : ""}; would run npm ${pkg.publish.args.filter((arg) => arg !== "--dry-run" && arg !== "--json").join(" ")}`,
      );
    }
    console.log(
      `${changesets.length} changeset(s) would be released${keep ? `; the plan is in ${join(base, "release-plan.json")}` : ""}`,
    );
    for (const blocker of plan.provenance.blockers)
      console.warn(`release:publish: provenance would be refused: ${blocker}`);
    // Thrown, not exited on, so the temporary copy is removed below.
    if (problems.length > 0) throw new Error(`the release would be wrong:\n- ${problems.join("\n- ")}`);
  } finally {
    if (!keep) rmSync(base, { recursive: true, force: true });
  }
}

try {
  if (options["dry-run"]) dryRun();
  else release();
} catch (error) {
  fail(error.message);
}
