/**
 * `pnpm release:publish --dry-run`, run as a maintainer runs it (but with --built: turbo built both
 * packages before this suite, and a nested build must not rewrite dist/ under the suites running beside
 * it): it versions a copy of the release's
 * inputs with the pending changesets, packs the copy and runs `npm publish --dry-run` on each tarball
 * (which reads the registry but needs no login). The tests read what it leaves in --out: the plan, the
 * versioned copy and the tarballs, and hold them to what a release must be, independently of the
 * script's own checks. The real publish is never run here: its refusal is tested on a copy of the
 * script with a changeset beside it, which refuses before it builds or reaches the registry.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, env = process.env): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env, timeout: 540_000, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface PlannedPackage {
  name: string;
  from: string;
  to: string;
  tarball: string;
  alreadyPublished: boolean | null;
  manifest: { version: string; dependencies?: Record<string, string> };
  publish: { args: string[]; files: string[] };
}

interface Plan {
  dryRun: boolean;
  changesets: { file: string; releases: Record<string, string> }[];
  packages: PlannedPackage[];
  provenance: { requested: boolean; blockers: string[] };
  problems: string[];
}

/** The changesets as the test reads them itself: packages named in the front matter, and the text. */
async function changesets(): Promise<{ file: string; names: string[]; summary: string }[]> {
  const dir = join(repoRoot, ".changeset");
  const files = (await readdir(dir)).filter((file) => file.endsWith(".md") && file !== "README.md");
  return Promise.all(
    files.map(async (file) => {
      const [, front = "", summary = ""] = (await readFile(join(dir, file), "utf8")).split(/^---$/m);
      const names = [...front.matchAll(/"([^"]+)":/g)].map((match) => match[1]!);
      return { file, names, summary: summary.trim() };
    }),
  );
}

/** What a release may write, fingerprinted: the dry run must leave every byte of it as it was. */
async function releaseInputs(): Promise<string> {
  const files = [
    ...(await readdir(join(repoRoot, ".changeset"))).map((file) => `.changeset/${file}`),
    ...["sealing", "sdk"].flatMap((name) => [
      `packages/${name}/package.json`,
      `packages/${name}/CHANGELOG.md`,
    ]),
  ].sort();
  const hash = createHash("sha256");
  for (const file of files) hash.update(file).update(await readFile(join(repoRoot, file)));
  return hash.digest("hex");
}

let scratch: string;
let out: string;
let dryRun: Outcome;
let plan: Plan;
let inputsBefore: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "roundtrip-release-test-"));
  out = join(scratch, "plan");
  inputsBefore = await releaseInputs();
  dryRun = await run("pnpm", ["release:publish", "--dry-run", "--built", "--out", out], repoRoot);
  if (dryRun.code === 0) plan = JSON.parse(await readFile(join(out, "release-plan.json"), "utf8")) as Plan;
});

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("pnpm release:publish --dry-run", () => {
  it("succeeds, finds nothing wrong and leaves the repository's changesets, versions and changelogs as they were", async () => {
    expect(dryRun.code, `${dryRun.stdout}\n${dryRun.stderr}`).toBe(0);
    expect(plan.dryRun).toBe(true);
    expect(plan.problems).toEqual([]);
    expect(await releaseInputs()).toBe(inputsBefore);
  });

  it("would publish sealing before the SDK that depends on it", () => {
    expect(plan.packages.map(({ name }) => name)).toEqual(["@roundtrip/sealing", "@roundtrip/sdk"]);
    const lines = dryRun.stdout.split("\n").filter((line) => / -> .*would run npm publish/.test(line));
    expect(lines.map((line) => line.split(":")[0])).toEqual(["@roundtrip/sealing", "@roundtrip/sdk"]);
  });

  it("would publish each tarball with provenance and public access, and npm accepts it as it stands", () => {
    for (const { name, tarball, publish } of plan.packages) {
      expect(publish.args.slice(0, 2), name).toEqual(["publish", `./${tarball}`]);
      expect(publish.args, name).toContain("--provenance");
      expect(publish.args.join(" "), name).toContain("--access public");
      expect(publish.args, name).toContain("--dry-run");
    }
    expect(plan.provenance.requested).toBe(true);
  });

  it("would publish dist/ with every file the packages export", () => {
    for (const { name, publish } of plan.packages) {
      expect(publish.files, name).toContain("dist/index.js");
      expect(publish.files, name).toContain("dist/index.d.ts");
      expect(publish.files, name).toContain("package.json");
    }
    const sdk = plan.packages.find(({ name }) => name === "@roundtrip/sdk")!;
    expect(sdk.publish.files).toEqual(expect.arrayContaining(["dist/server/fleet/redis/index.js"]));
  });

  it("bumps each package a changeset names, and the SDK depends on the sealing released with it, not on workspace:", async () => {
    const named = new Set((await changesets()).flatMap(({ names }) => names));
    for (const { name, from, to, manifest } of plan.packages) {
      expect(manifest.version, name).toBe(to);
      if (named.has(name)) expect(to, `${name} ${from} -> ${to}`).not.toBe(from);
    }
    const sealing = plan.packages.find(({ name }) => name === "@roundtrip/sealing")!;
    const sdkTarball = plan.packages.find(({ name }) => name === "@roundtrip/sdk")!.tarball;
    const packed = await run("tar", ["-xzOf", sdkTarball, "package/package.json"], out);
    expect(packed.code, packed.stderr).toBe(0);
    const manifest = JSON.parse(packed.stdout) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["@roundtrip/sealing"]).toBe(`^${sealing.to}`);
    expect(packed.stdout).not.toContain("workspace:");
  });

  it("writes each pending changeset's text into the changelog of every package it names, under the new version", async () => {
    const pending = await changesets();
    expect(plan.changesets.map(({ file }) => file).sort()).toEqual(pending.map(({ file }) => file).sort());
    for (const { name, to } of plan.packages) {
      const changelog = await readFile(join(out, "packages", name.split("/")[1]!, "CHANGELOG.md"), "utf8");
      const section = changelog.split(/^## /m).find((part) => part.startsWith(`${to}\n`)) ?? "";
      for (const { file, names, summary } of pending.filter(({ names }) => names.includes(name))) {
        for (const line of summary.split("\n").filter((text) => text.trim() !== "")) {
          expect(section, `${name} ${to}: the text of ${file} (${names.join(", ")})`).toContain(line.trim());
        }
      }
    }
  });
});

describe("pnpm release:publish --dry-run without a registry", () => {
  it("still versions, packs and lists both tarballs, and says it could not ask the registry", async () => {
    // Nothing listens on the discard port: every request npm makes is refused at once.
    const offline = join(scratch, "offline");
    const outcome = await run(
      "pnpm",
      ["release:publish", "--dry-run", "--built", "--out", offline],
      repoRoot,
      {
        ...process.env,
        npm_config_registry: "http://127.0.0.1:9/",
        npm_config_fetch_retries: "0",
      },
    );
    expect(outcome.code, `${outcome.stdout}\n${outcome.stderr}`).toBe(0);
    expect(outcome.stderr).toMatch(/could not ask the registry whether @roundtrip\/sealing@\S+ is published/);
    const offlinePlan = JSON.parse(await readFile(join(offline, "release-plan.json"), "utf8")) as Plan;
    expect(offlinePlan.packages.map(({ alreadyPublished }) => alreadyPublished)).toEqual([null, null]);
    expect(offlinePlan.packages.map(({ to }) => to)).toEqual(plan.packages.map(({ to }) => to));
    for (const { publish } of offlinePlan.packages) expect(publish.files).toContain("dist/index.js");
  });
});

describe("pnpm release:publish", () => {
  it("refuses while changesets are pending, naming them, before it builds or reaches the registry", async () => {
    const copy = join(scratch, "refusal");
    await mkdir(join(copy, "scripts", "release"), { recursive: true });
    await mkdir(join(copy, ".changeset"));
    for (const file of await readdir(join(repoRoot, "scripts", "release"))) {
      await copyFile(join(repoRoot, "scripts", "release", file), join(copy, "scripts", "release", file));
    }
    await writeFile(join(copy, ".changeset", "README.md"), "# Changesets\n");
    await writeFile(join(copy, ".changeset", "a-fix.md"), '---\n"@roundtrip/sdk": patch\n---\n\nA fix\n');
    const refused = await run(process.execPath, ["scripts/release/publish.mjs"], copy);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/1 changeset\(s\) are pending \(a-fix\.md\).*Version packages.*--dry-run/);
    expect(await readdir(copy)).toEqual([".changeset", "scripts"].sort());
  });
});
