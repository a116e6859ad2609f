/**
 * What an app gets from the registry. Packs @roundtrip/sealing and @roundtrip/sdk the way they are
 * published (`pnpm pack`, after turbo has built them: this package's devDependencies on both put their
 * `build` before its `test`), checks what the tarballs hold, installs them with npm into a scratch
 * project outside the workspace next to the app's own zod (another minor than the workspace's), and
 * compiles and runs the examples of both READMEs and of the SDK's docs/ pages there.
 *
 * Page convention (see src/readme-blocks.ts): a block tagged `ts` is a complete program and is
 * type-checked on its own (strict, NodeNext); one tagged `ts run` is also compiled and run with node
 * (22, 24 and 26 each)
 * and must exit 0 on its own; `console.log(...); // "text"` names a line it must print. Blocks in
 * other languages are not checked. The SDK's blocks copy its docs/examples/ files, which its own
 * test/docs.test.ts holds them to, so these are the files, compiled against the tarball.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CodeBlock,
  expectedOutput,
  missingOutput,
  moduleSource,
  readmeBlocks,
} from "../src/readme-blocks.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

const PACKAGES = [
  { name: "@roundtrip/sealing", dir: "packages/sealing" },
  { name: "@roundtrip/sdk", dir: "packages/sdk" },
] as const;

/**
 * The app's own packages. zod 4.2.0 is another minor than the workspace's 4.6.7 and the lowest the
 * SDK's peer range admits (4.2 brought z.fromJSONSchema); the KMS client and fastify are likewise the
 * lowest their peer ranges admit, so the ranges are tested where they are most likely to break.
 */
const APP_DEPENDENCIES = [
  "zod@4.2.0",
  "@aws-sdk/client-kms@3.910.0",
  "fastify@5.2.0",
  "redis@6.3.1",
  // The durable task runner's optional peer, at the lowest its range admits.
  "bullmq@6.7.0",
  "typescript@5.9.3",
  "@types/node@22",
  // The frameworks the README mounts the handlers on, at the versions the SDK's own tests run.
  "hono@4.13.19",
  "@hono/node-server@2.1.8",
  "express@5.3.0",
  "@types/express@5.0.6",
  // What the observability page registers: the optional API peer and the SDK pieces it shows.
  "@opentelemetry/api@1.10.0",
  "@opentelemetry/context-async-hooks@3.1.1",
  "@opentelemetry/core@3.1.1",
  "@opentelemetry/sdk-metrics@3.1.1",
  "@opentelemetry/sdk-trace@3.1.1",
];

/** Peers and shared packages the app and the SDK must resolve to one copy of: [package, dependency]. */
const SHARED = [
  ["@roundtrip/sdk", "zod"],
  ["@roundtrip/sdk", "@roundtrip/sealing"],
  ["@roundtrip/sdk", "fastify"],
  ["@roundtrip/sdk", "redis"],
  ["@roundtrip/sdk", "bullmq"],
  ["@roundtrip/sdk", "@opentelemetry/api"],
  ["@roundtrip/sealing", "@aws-sdk/client-kms"],
] as const;

/** Paths that are tests or test material, wherever they sit in a tarball. */
const TEST_MATERIAL = /(^|\/)(tests?([-_][^/]*)?|[^/]*fixtures?|__[a-z]+__)(\/|$)|\.(test|spec)\.[^/]*$/;

// pnpm hands the scripts it runs npm_* and pnpm_* variables, which npm would take for its own; the
// scratch project gets the environment of an app's shell instead.
const appEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm|pnpm)_/i.test(key)),
) as NodeJS.ProcessEnv;

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? appEnv,
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr, timedOut: error?.killed === true });
      },
    );
  });
}

/** The Node lines the packages' engines admit, each tested. */
const NODE_LINES = ["22", "24", "26"] as const;

const nodes = new Map<string, Promise<string>>();

/**
 * The node binary of a Node line: the repository's provisioning script finds it (the one on PATH, or
 * the copy `.ci/run` installed) or installs it from the npm registry, once per line.
 */
function nodeOfLine(line: (typeof NODE_LINES)[number]): Promise<string> {
  let node = nodes.get(line);
  if (node === undefined) {
    node = run("bash", [join(repoRoot, "scripts", "provision-node.sh"), line], {
      cwd: repoRoot,
      timeoutMs: 300_000,
    }).then((outcome) => {
      if (outcome.code !== 0) throw new Error(described(`scripts/provision-node.sh ${line}`, outcome));
      return join(outcome.stdout.trim(), "node");
    });
    nodes.set(line, node);
  }
  return node;
}

function described(what: string, outcome: Outcome): string {
  const status = outcome.timedOut ? "was stopped after its time limit" : `exited with ${outcome.code}`;
  return `${what} ${status}\n${outcome.stdout}\n${outcome.stderr}`.trim();
}

async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(dir, path) : [path];
    }),
  );
  return nested.flat().sort();
}

interface Manifest {
  name: string;
  files?: string[];
  exports?: Record<string, { types: string; default: string }>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

interface Packed {
  readonly tarball: string;
  /** The tarball's package/ folder, extracted. */
  readonly root: string;
  readonly files: readonly string[];
  readonly manifest: Manifest;
}

/** A package's pages with examples, relative to the repository: its README and its docs/*.md. */
function pagesOf(dir: string): string[] {
  const docs = join(repoRoot, dir, "docs");
  const pages = existsSync(docs) ? readdirSync(docs).filter((name) => name.endsWith(".md")) : [];
  return [`${dir}/README.md`, ...pages.sort().map((name) => `${dir}/docs/${name}`)];
}

const blocks: CodeBlock[] = PACKAGES.flatMap(({ dir }) => pagesOf(dir)).flatMap((page) =>
  readmeBlocks(page, readFileSync(join(repoRoot, page), "utf8")),
);
/** packages/sdk/docs/client.md, line 18: packages-sdk-docs-client-L18. */
const fileOf = (block: CodeBlock) =>
  `${block.readme.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")}-L${block.line}`;

let scratch: string;
let appDir: string;
const packed = new Map<string, Packed>();
/**
 * The one tsc run over the examples, checking and writing JavaScript at once: a second run to emit
 * would parse and bind every declaration file of the app again, most of what checking costs.
 */
let compilation: Promise<Outcome> | undefined;
/** tsc's exit code for "errors reported, output written anyway". */
const TSC_ERRORS_OUTPUT_WRITTEN = 2;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "roundtrip-pack-"));
  appDir = join(scratch, "app");
});

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("@roundtrip/sealing and @roundtrip/sdk as published", () => {
  it("pack with pnpm from their built dist/", async () => {
    const destination = join(scratch, "tarballs");
    for (const { name, dir } of PACKAGES) {
      if (!existsSync(join(repoRoot, dir, "dist"))) {
        throw new Error(`${dir}/dist is missing: run \`pnpm build\` (pnpm test runs it first)`);
      }
      const before = new Set(existsSync(destination) ? await readdir(destination) : []);
      const packing = await run("pnpm", ["pack", "--pack-destination", destination], {
        cwd: join(repoRoot, dir),
        env: process.env,
        timeoutMs: 180_000,
      });
      expect(packing.code, described(`pnpm pack in ${dir}`, packing)).toBe(0);
      const [tarball, ...others] = (await readdir(destination)).filter((file) => !before.has(file));
      expect(others, `pnpm pack in ${dir} wrote more than one file`).toEqual([]);
      const extracted = join(scratch, "packed", dir.split("/")[1]!);
      await mkdir(extracted, { recursive: true });
      const untar = await run("tar", ["-xzf", join(destination, tarball!), "-C", extracted], {
        cwd: scratch,
        timeoutMs: 120_000,
      });
      expect(untar.code, described("tar", untar)).toBe(0);
      const root = join(extracted, "package");
      const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Manifest;
      expect(manifest.name).toBe(name);
      packed.set(name, {
        tarball: join(destination, tarball!),
        root,
        files: await filesUnder(root),
        manifest,
      });
    }
  });

  it.each(PACKAGES)(
    "$name ships what its files list names, and no tests, test support or fixtures",
    ({ name }) => {
      const { files, manifest } = packed.get(name)!;
      const listed = (manifest.files ?? []).filter((entry) => !entry.startsWith("!"));
      const tops = new Set(files.map((file) => file.split("/")[0]!));
      expect([...tops].sort()).toEqual(["LICENSE", "README.md", "package.json", ...listed].sort());
      expect(files.filter((file) => TEST_MATERIAL.test(file))).toEqual([]);
    },
  );

  it.each(PACKAGES)(
    "$name ships the workspace's MIT LICENSE, its README and the docs pages it links",
    async ({ name, dir }) => {
      const { root } = packed.get(name)!;
      expect(await readFile(join(root, "LICENSE"), "utf8")).toBe(
        await readFile(join(repoRoot, "LICENSE"), "utf8"),
      );
      for (const page of pagesOf(dir)) {
        const shipped = join(root, page.slice(dir.length + 1));
        expect(existsSync(shipped), `${page} is not in the tarball`).toBe(true);
        expect(await readFile(shipped, "utf8"), page).toBe(await readFile(join(repoRoot, page), "utf8"));
      }
    },
  );

  it.each(PACKAGES)(
    "$name ships types for its JavaScript, and every file its exports and bin name",
    async ({ name }) => {
      const { root, files, manifest } = packed.get(name)!;
      const shipped = new Set(files);
      const untyped = files.filter(
        (file) =>
          file.startsWith("dist/") && file.endsWith(".js") && !shipped.has(file.replace(/\.js$/, ".d.ts")),
      );
      expect(untyped).toEqual([]);
      const targets = Object.values(manifest.exports ?? {}).flatMap(({ types, default: main }) => [
        types,
        main,
      ]);
      expect(targets.length).toBeGreaterThan(0);
      expect(targets.map((target) => posix.normalize(target)).filter((file) => !shipped.has(file))).toEqual(
        [],
      );
      for (const bin of Object.values(manifest.bin ?? {})) {
        expect(shipped.has(posix.normalize(bin)), bin).toBe(true);
        expect(await readFile(join(root, bin), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
      }
    },
  );

  it.each(PACKAGES)(
    "$name ships the sources its source maps point to, and the maps its files name",
    async ({ name }) => {
      const { root, files } = packed.get(name)!;
      const shipped = new Set(files);
      const dangling: string[] = [];
      for (const file of files) {
        if (file.endsWith(".map")) {
          const map = JSON.parse(await readFile(join(root, file), "utf8")) as {
            sources: string[];
            sourceRoot?: string;
          };
          for (const source of map.sources) {
            const target = posix.join(posix.dirname(file), map.sourceRoot ?? "", source);
            if (!shipped.has(target)) dangling.push(`${file} -> ${target}`);
          }
        } else if (/\.(js|d\.ts)$/.test(file)) {
          const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(join(root, file), "utf8"))?.[1];
          const target = url === undefined ? undefined : posix.join(posix.dirname(file), url);
          if (target !== undefined && !shipped.has(target)) dangling.push(`${file} -> ${target}`);
        }
      }
      expect(dangling).toEqual([]);
    },
  );

  it("refuse to pack without dist/, naming what is missing and the command that builds and packs", async () => {
    // The package as a fresh clone has it, before any build: its manifest, at its place beside the
    // repository's scripts/ (where its prepack finds the check), and no dist/.
    const root = join(scratch, "unbuilt");
    await mkdir(join(root, "scripts"), { recursive: true });
    await copyFile(
      join(repoRoot, "scripts", "require-built.mjs"),
      join(root, "scripts", "require-built.mjs"),
    );
    for (const { dir } of PACKAGES) {
      await mkdir(join(root, dir), { recursive: true });
      await copyFile(join(repoRoot, dir, "package.json"), join(root, dir, "package.json"));
      const packing = await run("pnpm", ["pack", "--pack-destination", join(root, "out")], {
        cwd: join(root, dir),
        env: process.env,
        timeoutMs: 180_000,
      });
      expect(packing.code, described(`pnpm pack in an unbuilt ${dir}`, packing)).not.toBe(0);
      expect(packing.stderr + packing.stdout).toMatch(/\.\/dist\/index\.js.* not built.*pnpm pack:release/);
      expect(existsSync(join(root, "out"))).toBe(false);
    }
  });

  it("write real versions for workspace: ranges, and leave zod and the KMS client to the app", () => {
    for (const { manifest } of packed.values()) {
      expect(JSON.stringify(manifest), manifest.name).not.toContain("workspace:");
    }
    const sdk = packed.get("@roundtrip/sdk")!.manifest;
    const sealing = packed.get("@roundtrip/sealing")!.manifest;
    expect(sdk.dependencies?.zod).toBeUndefined();
    expect(sdk.peerDependencies?.zod).toBeDefined();
    expect(sealing.dependencies?.["@aws-sdk/client-kms"]).toBeUndefined();
    expect(sealing.peerDependencies?.["@aws-sdk/client-kms"]).toBeDefined();
    expect(sealing.peerDependenciesMeta?.["@aws-sdk/client-kms"]?.optional).toBe(true);
  });
});

describe("an npm app that installs the tarballs", () => {
  it("installs them next to its own zod, with one copy of every package it shares with them", async () => {
    await mkdir(appDir, { recursive: true });
    await writeFile(
      join(appDir, "package.json"),
      `${JSON.stringify({ name: "roundtrip-pack-app", private: true, type: "module" }, null, 2)}\n`,
    );
    const tarballs = [...packed.values()].map(({ tarball }) => tarball);
    expect(tarballs).toHaveLength(PACKAGES.length);
    // --prefer-offline: what npm's cache already holds is not asked for again, so a registry that
    // stalls does not stall a machine that has installed these once; a fresh machine fetches them.
    const install = await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        ...tarballs,
        ...APP_DEPENDENCIES,
      ],
      { cwd: appDir, timeoutMs: 400_000 },
    );
    expect(install.code, described("npm install", install)).toBe(0);

    // npm ls fails on a missing or unsatisfied peer, which npm install only warns about.
    const listing = await run("npm", ["ls", "--all"], { cwd: appDir, timeoutMs: 180_000 });
    expect(listing.code, described("npm ls --all", listing)).toBe(0);
    const nested = SHARED.filter(([from, dependency]) =>
      existsSync(join(appDir, "node_modules", from, "node_modules", dependency)),
    ).map(([from, dependency]) => `${from} has its own ${dependency}`);
    expect(nested).toEqual([]);
    const zod = JSON.parse(await readFile(join(appDir, "node_modules", "zod", "package.json"), "utf8"));
    expect(`zod@${zod.version}`).toBe(APP_DEPENDENCIES[0]);
  });

  it("type-checks every TypeScript example of both READMEs and the SDK's docs, and an import of every entry point", async () => {
    for (const { dir } of PACKAGES) {
      expect(blocks.filter((block) => block.readme.startsWith(`${dir}/`)).length, dir).toBeGreaterThan(0);
    }
    const examples = join(appDir, "examples");
    await mkdir(examples, { recursive: true });
    for (const block of blocks) await writeFile(join(examples, `${fileOf(block)}.ts`), moduleSource(block));
    const entryPoints = [...packed.values()].flatMap(({ manifest }) =>
      Object.keys(manifest.exports ?? {}).map((subpath) => posix.join(manifest.name, subpath)),
    );
    // Prints each entry point that loads with exports; the imports are used, so tsc keeps them.
    await writeFile(
      join(examples, "entry-points.ts"),
      [
        ...entryPoints.map((specifier, index) => `import * as entry${index} from "${specifier}";`),
        `const loaded = { ${entryPoints.map((specifier, index) => `"${specifier}": entry${index}`).join(", ")} };`,
        "for (const [name, exports] of Object.entries(loaded)) if (Object.keys(exports).length > 0) console.log(name);",
        "",
      ].join("\n"),
    );
    await writeFile(join(appDir, "entry-points.json"), JSON.stringify(entryPoints));
    await writeFile(
      join(appDir, "tsconfig.json"),
      `${JSON.stringify(
        {
          compilerOptions: {
            strict: true,
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            types: ["node"],
            rootDir: "examples",
            outDir: "out",
          },
          include: ["examples"],
        },
        null,
        2,
      )}\n`,
    );
    // A checker that sees two copies of zod can spend many minutes and gigabytes comparing them: bound
    // it, far above what one copy takes even on a loaded machine (the install test finds a second copy).
    compilation = run(
      process.execPath,
      ["--max-old-space-size=2048", "node_modules/typescript/bin/tsc", "-p", "."],
      { cwd: appDir, timeoutMs: 900_000 },
    );
    const check = await compilation;
    expect(check.stdout + check.stderr).toBe("");
    const hint = check.timedOut ? " (is there a second copy of zod? see the install test)" : "";
    expect(check.code, described(`tsc${hint}`, check)).toBe(0);
  });

  it("compiles them to JavaScript, loads every entry point and runs the keygen bin", async () => {
    expect(compilation, "the type-check test runs tsc, which also writes the JavaScript").toBeDefined();
    // Type errors are the type-check test's to report; the examples still run when tsc wrote them.
    const emit = (await compilation) as Outcome;
    expect([0, TSC_ERRORS_OUTPUT_WRITTEN], described("tsc", emit)).toContain(emit.code);
    const entries = await run(process.execPath, ["out/entry-points.js"], { cwd: appDir, timeoutMs: 120_000 });
    expect(entries.code, described("node out/entry-points.js", entries)).toBe(0);
    const entryPoints = JSON.parse(await readFile(join(appDir, "entry-points.json"), "utf8")) as string[];
    expect(entries.stdout.trim().split("\n")).toEqual(entryPoints);
    const keygen = await run(join(appDir, "node_modules", ".bin", "roundtrip-kms-keygen"), ["--help"], {
      cwd: appDir,
      timeoutMs: 120_000,
    });
    expect(keygen.code, described("roundtrip-kms-keygen --help", keygen)).toBe(0);
    expect(keygen.stdout).toMatch(/^Usage: roundtrip-kms-keygen /);
  });

  // Every runnable example on each Node line the packages support (engines: >=22), the stdio one among
  // them: a user's app runs on whichever of them their machine has.
  const runs = NODE_LINES.flatMap((line) =>
    blocks.filter((block) => block.run).map((block) => ({ ...block, node: line })),
  );
  it.each(runs)("runs the example at $readme:$line on Node $node", async (block) => {
    const node = await nodeOfLine(block.node);
    const outcome = await run(node, [`out/${fileOf(block)}.js`], { cwd: appDir, timeoutMs: 120_000 });
    const what = `the example at ${block.readme}:${block.line} on Node ${block.node}`;
    expect(outcome.code, described(what, outcome)).toBe(0);
    expect(missingOutput(expectedOutput(block), outcome.stdout), outcome.stdout).toBeUndefined();
  });
});
