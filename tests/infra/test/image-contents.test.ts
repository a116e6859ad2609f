import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, realpath, rename, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { startLocalAuthServer } from "@roundtrip/local-auth";
import { adminClient, createKey, useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { type MotoServer, startMotoServer } from "@roundtrip/test-kms/moto-server";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { buildContext, buildStage } from "../src/build-stage.js";
import { execForm, flags, loadDockerfile, ofKind, type Stage } from "../src/dockerfile.js";
import { run } from "../src/repo.js";

// An image's /app is exactly what `pnpm deploy` writes to /out in its build stage. Without a container
// engine, build that stage on this machine: the Dockerfile's own steps, from a copy of the build
// context, with a pnpm store and cache that start empty, as they do in a fresh image. Then move the
// result as COPY does and use it the way the compose stack does: mint a wrapped key with the server
// image's keygen, start the server with the image's CMD and environment against a KMS emulator, and
// start the development authorization server with its ENTRYPOINT.
let workDir: string;
let storeDir: string;
let cacheDir: string;
let moto: MotoServer;
let server: Stage;
let localAuth: Stage;
let appDir: string;
let localAuthDir: string;
/** Where each build ran its steps: the workspace, with the lockfile and manifests it installed from. */
const workspaces = new Map<string, string>();
const children: ChildProcess[] = [];

const AWS_ENV = {
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "roundtrip-test",
  AWS_SECRET_ACCESS_KEY: "roundtrip-test",
};

// How this machine reaches the registry (a proxy, its CA); nothing else of this shell's environment.
const NETWORK_ENV = ["NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"].flatMap((name) =>
  [name, name.toLowerCase()].filter((key) => process.env[key] !== undefined),
);

/** Builds the stage an image copies /app from, into a root of its own; returns where /app would be. */
async function buildApp(stages: Stage[], image: Stage, context: string[]): Promise<string> {
  const copy = ofKind(image, "COPY").find((instruction) => flags(instruction).has("from"))!;
  const [out] = copy.getArguments().map((arg) => arg.getValue());
  const root = join(workDir, `${image.name}-root`);
  const workdir = await buildStage(stages, flags(copy).get("from")!, {
    root,
    context,
    // A HOME of its own holds no user configuration; the store and the cache hold nothing this
    // machine downloaded before, so whatever the build installs it had to get itself.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(root, "root"),
      pnpm_config_store_dir: storeDir,
      pnpm_config_cache_dir: cacheDir,
      ...Object.fromEntries(NETWORK_ENV.map((name) => [name, process.env[name]!])),
    },
  });
  // COPY --from=<build> /out /app: the folder moves, so nothing may depend on its old path.
  const app = join(workDir, `${image.name}-app`);
  await rename(join(root, out!), app);
  workspaces.set(app, join(root, workdir));
  return app;
}

beforeAll(async () => {
  useDummyAwsEnvironment();
  workDir = await mkdtemp(join(tmpdir(), "roundtrip-image-"));
  storeDir = join(workDir, "store");
  cacheDir = join(workDir, "cache");
  const { stages } = await loadDockerfile();
  server = stages.at(-1)!;
  localAuth = stages.find((stage) => stage.name === "local-auth")!;
  const context = await buildContext();
  [moto] = await Promise.all([
    startMotoServer(),
    (async () => {
      // Both build stages start FROM the workspace stage, which Docker runs once: they share its
      // layer, store included. Here each re-runs it, one after the other, with the one store, so the
      // second `pnpm fetch` finds what the first downloaded, as it would in that layer.
      appDir = await buildApp(stages, server, context);
      localAuthDir = await buildApp(stages, localAuth, context);
    })(),
  ]);
}, 900_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await moto?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

interface LockfileImporter {
  dependencies?: Record<string, { specifier: string; version: string }>;
}

interface Lockfile {
  importers: Record<string, LockfileImporter>;
  packages?: Record<string, { resolution: Record<string, string> }>;
  snapshots?: Record<string, unknown>;
}

const readJson = async <T>(...segments: string[]) =>
  JSON.parse(await readFile(join(...segments), "utf8")) as T;

/**
 * The lockfile a build installed from, and the workspace project a deployed folder came from: its
 * manifest and its importer. Read from the build's copy, which other people's edits do not change.
 */
async function workspaceProject(app: string) {
  const workspace = workspaces.get(app)!;
  const lockfile = parse(await readFile(join(workspace, "pnpm-lock.yaml"), "utf8")) as Lockfile;
  const { name } = await readJson<Manifest>(app, "package.json");
  for (const [path, importer] of Object.entries(lockfile.importers)) {
    const manifest = await readJson<Manifest>(workspace, path, "package.json");
    if (manifest.name === name) return { lockfile, manifest, importer };
  }
  throw new Error(`${name} is not a project of the workspace lockfile`);
}

/**
 * The deployed folder holds the packages, and the package versions, the workspace lockfile pins:
 * pnpm's record of the install (node_modules/.pnpm/lock.yaml) agrees with pnpm-lock.yaml on every
 * registry package, and the build read no registry metadata, which resolving any range would need.
 */
async function expectPinnedByLockfile(app: string) {
  const cached = await readdir(cacheDir).catch(() => []);
  expect(cached.filter((entry) => entry.startsWith("metadata"))).toEqual([]);
  expect(await readdir(storeDir)).not.toEqual([]);

  const { lockfile: workspace, importer } = await workspaceProject(app);
  const deployed = parse(await readFile(join(app, "node_modules", ".pnpm", "lock.yaml"), "utf8")) as Lockfile;
  const fromRegistry = Object.keys(deployed.packages ?? {}).filter((key) => !key.includes("@file:"));
  expect(fromRegistry.length).toBeGreaterThan(0);
  for (const key of fromRegistry) {
    expect(deployed.packages![key]!.resolution, key).toEqual(workspace.packages?.[key]?.resolution);
  }
  for (const [key, snapshot] of Object.entries(deployed.snapshots ?? {})) {
    if (!key.includes("@file:")) expect(snapshot, key).toEqual(workspace.snapshots?.[key]);
  }
  // Its own dependencies at the versions its importer names; workspace links became file: copies.
  const installed = deployed.importers["."]?.dependencies ?? {};
  expect(Object.keys(installed).sort()).toEqual(Object.keys(importer.dependencies ?? {}).sort());
  for (const [dependency, { version }] of Object.entries(installed)) {
    const pinned = importer.dependencies![dependency]!.version;
    if (pinned.startsWith("link:")) expect(version, dependency).toContain(`${dependency}@file:`);
    else expect(version, dependency).toBe(pinned);
  }
}

async function snapshot(dir: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), (await stat(path)).mtimeMs);
  }
  return files;
}

/** The ENV lines of the server stage, as variables. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of ofKind(server, "ENV").map((e) => e.getArgumentsContent() ?? "")) {
    for (const [, name, value] of line.matchAll(/([A-Z_]+)=(\S+)/g)) env[name!] = value!;
  }
  return env;
}

/** Starts the image's CMD in /app; resolves with the port once the server logs both lines. */
function startServer(env: Record<string, string>) {
  const cmd = execForm(ofKind(server, "CMD")[0]!)!;
  expect(cmd[0]).toBe("node");
  const child = spawn(process.execPath, cmd.slice(1), {
    cwd: appDir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<number>((resolve, reject) => {
    let log = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const port = log.match(/"address":"http:\/\/127\.0\.0\.1:(\d+)"/)?.[1];
      if (port !== undefined && log.includes("request-state keys unwrapped by KMS")) resolve(Number(port));
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr}\n${log}`)));
  });
  return { child, exited, ready };
}

/** /readyz turns 200 just after the keys are installed; poll it for a bounded time. */
async function readyz(port: number): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
    status = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return status;
}

describe("the server image's /app, built by the Dockerfile's steps from an empty pnpm store", () => {
  it("holds the compiled server and its production dependencies, without dev tooling", async () => {
    const top = await readdir(appDir);
    expect(top).toEqual(expect.arrayContaining(["dist", "node_modules", "package.json"]));
    expect(top).not.toContain("src");
    // The deploy's own lockfile describes the whole workspace, not this folder.
    expect(top).not.toContain("pnpm-lock.yaml");
    const modules = await readdir(join(appDir, "node_modules"));
    expect(modules).toEqual(expect.arrayContaining(["fastify", "@roundtrip", "@aws-sdk"]));
    for (const dev of ["tsx", "vitest", "typescript", "jose"]) expect(modules).not.toContain(dev);
    expect((await readdir(join(appDir, "node_modules", "@roundtrip"))).sort()).toEqual(["sdk", "sealing"]);
  });

  it("installs exactly what the lockfile pins, and resolves nothing from the registry", async () => {
    await expectPinnedByLockfile(appDir);
  });

  it("gives each workspace package the server's own copy of a peer the server depends on", async () => {
    // The lockfile binds no peers to linked workspace packages, so the deploy relies on this.
    const app = await readJson<Manifest>(appDir, "package.json");
    const fromApp = createRequire(join(appDir, "package.json"));
    const checked: string[] = [];
    for (const name of await readdir(join(appDir, "node_modules", "@roundtrip"))) {
      const dir = await realpath(join(appDir, "node_modules", "@roundtrip", name));
      const manifest = await readJson<Manifest>(dir, "package.json");
      const fromPackage = createRequire(join(dir, "package.json"));
      for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
        if (app.dependencies?.[peer] === undefined) continue;
        expect(await realpath(fromPackage.resolve(peer)), `${peer} from ${manifest.name}`).toBe(
          await realpath(fromApp.resolve(peer)),
        );
        checked.push(`${manifest.name} -> ${peer}`);
      }
    }
    expect(checked.length).toBeGreaterThan(0);
  });

  it("mints a wrapped key with its keygen, starts on it with the image's CMD, passes the HEALTHCHECK, writes nothing, and stops on SIGTERM", async () => {
    const { alias } = await createKey(adminClient(moto.url));
    const keygen = await run(
      join(appDir, "node_modules", ".bin", "roundtrip-kms-keygen"),
      ["--key-id", alias, "--service", "roundtrip"],
      { env: { PATH: process.env.PATH ?? "", ...AWS_ENV, AWS_ENDPOINT_URL_KMS: moto.url } },
    );
    const wrapped = keygen.stdout.trim();
    expect(wrapped).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const env = imageEnv();
    expect(env).toMatchObject({ NODE_ENV: "production", HOST: "0.0.0.0" });
    const before = await snapshot(appDir);
    // A real authorization server: the server is ready only once its issuer answers.
    const issuer = await startLocalAuthServer({ resource: "http://127.0.0.1:3000/mcp" });
    onTestFinished(() => issuer.close());
    // Loopback and a free port instead of 0.0.0.0:3000: this is a shared machine, not a container.
    const started = startServer({
      PATH: process.env.PATH ?? "",
      ...env,
      ...AWS_ENV,
      HOST: "127.0.0.1",
      PORT: "0",
      PUBLIC_URL: "http://127.0.0.1:3000/mcp",
      OAUTH_ISSUER: issuer.issuer,
      SERVER_NAME: "roundtrip",
      KMS_WRAPPED_KEYS: wrapped,
      KMS_KEY_ID: alias,
      KMS_ENDPOINT: moto.url,
    });
    const port = await started.ready;
    expect(await readyz(port)).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    const check = execForm(ofKind(server, "HEALTHCHECK")[0]!)!;
    const probe = await run(process.execPath, check.slice(1), { env: { PORT: String(port) } }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? 1,
    );
    expect(probe).toBe(0);

    started.child.kill("SIGTERM");
    expect(await started.exited).toBe(0);
    // A read-only root filesystem is safe: nothing under /app was created or touched.
    expect(await snapshot(appDir)).toEqual(before);
  });
});

describe("the local-auth image's /app, built the same way", () => {
  const entrypoint = () => execForm(ofKind(localAuth, "ENTRYPOINT")[0]!)!;

  it("holds its ENTRYPOINT's script and its production dependencies, without its dev dependencies", async () => {
    const top = await readdir(localAuthDir);
    expect(top).toEqual(expect.arrayContaining(["dist", "node_modules", "package.json"]));
    expect(top).not.toContain("src");
    expect(top).not.toContain("pnpm-lock.yaml");
    expect(entrypoint()[0]).toBe("node");
    expect((await stat(join(localAuthDir, entrypoint()[1]!))).isFile()).toBe(true);

    const { manifest } = await workspaceProject(localAuthDir);
    const installed = (dependency: string) => existsSync(join(localAuthDir, "node_modules", dependency));
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      expect(installed(dependency)).toBe(true);
    for (const dev of Object.keys(manifest.devDependencies ?? {})) expect(installed(dev), dev).toBe(false);
  });

  it("installs exactly what the lockfile pins, and resolves nothing from the registry", async () => {
    await expectPinnedByLockfile(localAuthDir);
  });

  it("starts with its ENTRYPOINT, serves its OpenID configuration, writes nothing, and stops on SIGTERM", async () => {
    const before = await snapshot(localAuthDir);
    // compose passes --resource, --host and --port; a free loopback port on a shared machine.
    const child = spawn(
      process.execPath,
      [...entrypoint().slice(1), "--resource", "http://127.0.0.1:3000/mcp", "--port", "0"],
      { cwd: localAuthDir, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const issuer = await new Promise<string>((resolve, reject) => {
      let log = "";
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.stdout!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        const line = log.split("\n").find((text) => text.startsWith("{"));
        if (line !== undefined && log.includes("\n"))
          resolve((JSON.parse(line) as { issuer: string }).issuer);
      });
      void exited.then((code) => reject(new Error(`local-auth exited with ${code}: ${stderr}\n${log}`)));
    });
    const discovery = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(issuer);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await snapshot(localAuthDir)).toEqual(before);
  });
});
