import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { adminClient, createKey, useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { type MotoServer, startMotoServer } from "@roundtrip/test-kms/moto-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execForm, loadDockerfile, ofKind, type Stage } from "../src/dockerfile.js";
import { repoRoot, run } from "../src/repo.js";

// The server image's /app is exactly what `pnpm deploy` writes to /out in the build stage. Without a
// container engine, run the same deploy against this workspace, move the result as COPY does, and use
// it the way the compose stack does: mint a wrapped key with the image's keygen, then start the server
// with the image's CMD and environment against a KMS emulator.
let workDir: string;
let appDir: string;
let moto: MotoServer;
let server: Stage;
const children: ChildProcess[] = [];

const AWS_ENV = {
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "roundtrip-test",
  AWS_SECRET_ACCESS_KEY: "roundtrip-test",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
};

beforeAll(async () => {
  useDummyAwsEnvironment();
  workDir = await mkdtemp(join(tmpdir(), "roundtrip-image-"));
  const out = join(workDir, "out");
  [moto] = await Promise.all([
    startMotoServer(),
    run("pnpm", ["--filter", "@roundtrip/server", "deploy", "--prod", "--legacy", "--offline", out], {
      cwd: repoRoot,
      env: { ...process.env, CI: "true" },
      maxBuffer: 16 * 1024 * 1024,
    }),
  ]);
  // COPY --from=server-build /out /app: the folder moves, so nothing may depend on its old path.
  appDir = join(workDir, "app");
  await rename(out, appDir);
  server = (await loadDockerfile()).stages.at(-1)!;
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await moto?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

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

describe("the server image's /app (pnpm deploy --prod)", () => {
  it("holds the compiled server and its production dependencies, without dev tooling", async () => {
    const top = await readdir(appDir);
    expect(top).toEqual(expect.arrayContaining(["dist", "node_modules", "package.json"]));
    expect(top).not.toContain("src");
    const modules = await readdir(join(appDir, "node_modules"));
    expect(modules).toEqual(expect.arrayContaining(["fastify", "@roundtrip", "@aws-sdk"]));
    for (const dev of ["tsx", "vitest", "typescript", "jose"]) expect(modules).not.toContain(dev);
    expect((await readdir(join(appDir, "node_modules", "@roundtrip"))).sort()).toEqual(["sdk", "sealing"]);
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
    // Loopback and a free port instead of 0.0.0.0:3000: this is a shared machine, not a container.
    const started = startServer({
      PATH: process.env.PATH ?? "",
      ...env,
      ...AWS_ENV,
      HOST: "127.0.0.1",
      PORT: "0",
      PUBLIC_URL: "http://127.0.0.1:3000/mcp",
      OAUTH_ISSUER: "http://127.0.0.1:9",
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
