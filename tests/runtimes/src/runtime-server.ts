import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@roundtrip/test-services";
import { build } from "esbuild";
import { type RuntimeName, runtimeBinary } from "./runtime-binary.js";

export interface RuntimeServer {
  readonly url: string;
  /** What the runtime wrote so far, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "..", "fixtures");
const repoRoot = join(here, "..", "..", "..");
const require = createRequire(import.meta.url);
const STARTUP_MS = 60_000;

/**
 * An app folder as a user of the published packages has it: the fixture modules and a node_modules
 * with @roundtrip/sdk, @roundtrip/sealing and zod, linked to the workspace's built packages.
 */
async function appFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-runtime-"));
  await mkdir(join(dir, "node_modules", "@roundtrip"), { recursive: true });
  await symlink(join(repoRoot, "packages", "sdk"), join(dir, "node_modules", "@roundtrip", "sdk"));
  await symlink(join(repoRoot, "packages", "sealing"), join(dir, "node_modules", "@roundtrip", "sealing"));
  await symlink(dirname(require.resolve("zod/package.json")), join(dir, "node_modules", "zod"));
  for (const file of ["server.ts", "worker.ts", "tools.ts"])
    await copyFile(join(fixtures, file), join(dir, file));
  return dir;
}

/**
 * A Worker is one bundled module, as wrangler deploys it: esbuild with the workerd export conditions,
 * node: built-ins left to nodejs_compat. The sealing key is a text binding, like a wrangler secret.
 * Without enable_request_signal, workerd never aborts `request.signal` when the client goes away, and a
 * handler waiting on `ctx.signal` hangs until the runtime kills the request.
 */
async function workerConfig(dir: string, port: number): Promise<string> {
  await build({
    entryPoints: [join(dir, "worker.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "import"],
    mainFields: ["module", "main"],
    external: ["node:*"],
    outfile: join(dir, "worker.js"),
    logLevel: "silent",
  });
  const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .mainWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const mainWorker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-07-01",
  compatibilityFlags = ["nodejs_compat", "enable_request_signal"],
  bindings = [ (name = "STATE_KEY", text = "${randomBytes(32).toString("hex")}") ],
);
`;
  await writeFile(join(dir, "config.capnp"), config);
  return "config.capnp";
}

interface Launch {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Known in advance for workerd; Bun and Deno pick one and print it. */
  port?: number;
}

async function launchFor(name: RuntimeName, dir: string): Promise<Launch> {
  switch (name) {
    case "bun":
      return { args: ["--no-install", "run", "server.ts"], env: { ...process.env } };
    case "deno":
      return {
        // Only what the SDK needs: the loopback network, reading its own modules, the environment.
        args: [
          "run",
          "--allow-net=127.0.0.1",
          "--allow-read",
          "--allow-env",
          "--node-modules-dir=manual",
          "server.ts",
        ],
        env: { ...process.env, DENO_DIR: join(dir, ".deno"), DENO_NO_UPDATE_CHECK: "1" },
      };
    case "workerd": {
      const port = await freePort();
      return { args: ["serve", await workerConfig(dir, port)], env: { ...process.env }, port };
    }
  }
}

/** Resolves with the port once the server answers HTTP, or rejects with what the runtime said. */
function listening(
  name: RuntimeName,
  child: ChildProcess,
  launch: Launch,
  output: () => string,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | undefined, port?: number) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(port as number);
    };
    const timer = setTimeout(
      () => settle(new Error(`${name} did not listen within 60 s: ${output()}`)),
      STARTUP_MS,
    );
    child.once("exit", (code) =>
      settle(new Error(`${name} exited with ${code} before listening: ${output()}`)),
    );
    if (launch.port === undefined) {
      child.stdout?.on("data", () => {
        const match = /listening (\d+)/.exec(output());
        if (match) settle(undefined, Number(match[1]));
      });
      return;
    }
    const port = launch.port;
    const poll = async () => {
      while (!settled) {
        const answered = await fetch(`http://127.0.0.1:${port}/`, { method: "OPTIONS" }).then(
          () => true,
          () => false,
        );
        if (answered) return settle(undefined, port);
        await new Promise((wait) => setTimeout(wait, 100));
      }
    };
    void poll();
  });
}

/** Starts the fixture server on `name` and resolves once it listens. */
export async function startRuntimeServer(name: RuntimeName): Promise<RuntimeServer> {
  const binary = runtimeBinary(name);
  const dir = await appFolder();
  const launch = await launchFor(name, dir);
  const child = spawn(binary, launch.args, { cwd: dir, env: launch.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  let port: number;
  try {
    port = await listening(name, child, launch, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/`, output: () => output, close: stop };
}
