import { type ChildProcess, spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RuntimeName, runtimeBinary } from "./runtime-binary.js";

export interface RuntimeServer {
  readonly url: string;
  /** What the runtime wrote to stderr so far, for failure messages. */
  stderr(): string;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");
const require = createRequire(import.meta.url);

/**
 * An app folder as a user of the published packages has it: the server module and a node_modules
 * with @roundtrip/sdk, @roundtrip/sealing and zod, linked to the workspace's built packages.
 */
async function appFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-runtime-"));
  await mkdir(join(dir, "node_modules", "@roundtrip"), { recursive: true });
  await symlink(join(repoRoot, "packages", "sdk"), join(dir, "node_modules", "@roundtrip", "sdk"));
  await symlink(join(repoRoot, "packages", "sealing"), join(dir, "node_modules", "@roundtrip", "sealing"));
  await symlink(dirname(require.resolve("zod/package.json")), join(dir, "node_modules", "zod"));
  await copyFile(join(here, "..", "fixtures", "server.ts"), join(dir, "server.ts"));
  return dir;
}

function commandFor(name: RuntimeName, dir: string): { args: string[]; env: NodeJS.ProcessEnv } {
  if (name === "bun") return { args: ["--no-install", "run", "server.ts"], env: { ...process.env } };
  return {
    // Only what the SDK needs: the network, reading its own modules, and the environment.
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
}

/** Starts the fixture server on `name` and resolves once it listens. */
export async function startRuntimeServer(name: RuntimeName): Promise<RuntimeServer> {
  const binary = runtimeBinary(name);
  const dir = await appFolder();
  const { args, env } = commandFor(name, dir);
  const child: ChildProcess = spawn(binary, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(
      () => reject(new Error(`${name} did not listen within 60 s: ${stderr}`)),
      60_000,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening (\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    stderr: () => stderr,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
