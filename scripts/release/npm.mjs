// The registry's side of a release: whether a version is there already, and publishing a tarball with
// provenance. The dry run goes through the same calls with npm's --dry-run, so what it shows is what a
// release would run.
import { spawnSync } from "node:child_process";

/**
 * Runs a command to its end and returns its output; when it fails, throws an error naming the command,
 * its status and what it printed.
 */
export function run(command, args, { cwd, env = process.env, allowFailure = false }) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error !== undefined) {
    throw new Error(`${command} could not start (${result.error.message}); is it on PATH?`);
  }
  if (result.status !== 0 && !allowFailure) {
    throw new Error(
      `\`${[command, ...args].join(" ")}\` in ${cwd} exited with ${result.status}\n${result.stdout}\n${result.stderr}`.trim(),
    );
  }
  return result;
}

/**
 * The arguments of `npm publish` for one tarball. --provenance has npm attach a signed statement of the
 * workflow run that built it (the id-token permission lets it ask GitHub for one); --access public, since
 * a scoped package is private by default. The path starts with ./ so npm reads it as a file, not as a
 * GitHub repository.
 */
export function publishArgs(tarballPath, { dryRun }) {
  return [
    "publish",
    `./${tarballPath}`,
    "--provenance",
    "--access",
    "public",
    ...(dryRun ? ["--dry-run", "--json"] : []),
  ];
}

/** Publishes one tarball; with dryRun, npm checks and lists it without uploading, and needs no login. */
export function publish(tarballPath, { cwd, dryRun }) {
  const args = publishArgs(tarballPath, { dryRun });
  const { stdout, stderr } = run("npm", args, { cwd });
  if (!dryRun) {
    // npm's own account of the upload (the provenance statement's transparency log entry among it)
    // belongs in the workflow's log.
    process.stderr.write(`${stdout}${stderr}`);
    return { args, files: undefined };
  }
  const report = Object.values(JSON.parse(stdout))[0];
  return { args, files: report.files.map(({ path }) => path) };
}

/**
 * Whether the registry has this version already: the release workflow runs on every push to main, and a
 * version it published before is skipped rather than refused by the registry.
 */
export function isPublished({ name, version }, { cwd }) {
  const result = run("npm", ["view", `${name}@${version}`, "version", "--json"], { cwd, allowFailure: true });
  if (result.status === 0) return result.stdout.trim() !== "";
  if (/\bE404\b/.test(result.stdout + result.stderr)) return false;
  throw new Error(
    `could not ask the registry whether ${name}@${version} is published (npm view exited with ${result.status}); check the network and npm's registry setting\n${result.stderr}`.trim(),
  );
}
