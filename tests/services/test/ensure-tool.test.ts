import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findExecutable, provisionTool, TOOLS, type Tool, ToolUnavailableError } from "../src/index.js";

const scratch: string[] = [];

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-services-"));
  scratch.push(dir);
  return dir;
}

async function executable(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, "#!/bin/sh\necho here\n");
  await chmod(path, 0o755);
  return path;
}

/** The error `pending` rejects with; fails the test if it resolves. */
async function failure(pending: Promise<unknown>): Promise<Error> {
  const outcome = await pending.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a failure, got ${String(outcome.value)}`);
  return outcome.error as Error;
}

afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("findExecutable", () => {
  it("takes the first executable file on PATH and passes over plain files and folders", async () => {
    const [first, second] = [await scratchDir(), await scratchDir()];
    await writeFile(join(first, "tool"), "not executable");
    await mkdir(join(first, "tool-dir"));
    const wanted = await executable(second, "tool");
    expect(findExecutable("tool", { path: `${first}:${second}` })).toBe(wanted);
    expect(findExecutable("tool-dir", { path: first })).toBeUndefined();
  });

  it("looks in the extra folders first and at the absolute paths last", async () => {
    const [extra, onPath, elsewhere] = [await scratchDir(), await scratchDir(), await scratchDir()];
    const preferred = await executable(extra, "tool");
    await executable(onPath, "tool");
    expect(findExecutable("tool", { dirs: [extra], path: onPath })).toBe(preferred);
    const fallback = await executable(elsewhere, "other");
    expect(findExecutable("other", { path: onPath, absolute: ["relative/other", fallback] })).toBe(fallback);
  });
});

describe("provisionTool", () => {
  it("uses a tool already on PATH and installs nothing", async () => {
    const [bin, stateDir] = [await scratchDir(), await scratchDir()];
    const fake = await executable(bin, "moto_server");
    await expect(provisionTool(TOOLS.moto_server, { path: bin, stateDir })).resolves.toBe(fake);
    await expect(stat(join(stateDir, "python"))).rejects.toThrow();
  });

  it("fails in one line with the install command when a tool has no package", async () => {
    const error = await failure(provisionTool(TOOLS.kubectl, { path: await scratchDir() }));
    expect(error).toBeInstanceOf(ToolUnavailableError);
    const { message } = error as Error;
    expect(message).not.toContain("\n");
    expect(message).toMatch(/^kubectl \(.+\) is not installed .*: install kubectl 1\.27 or later/);
  });

  it("without apt-get, names the Debian package to install by hand", async () => {
    const server: Tool = {
      command: "roundtrip-no-such-server",
      purpose: "nothing",
      alsoAt: [],
      source: { kind: "apt", packages: ["roundtrip-no-such-package"] },
    };
    const error = await failure(
      provisionTool(server, {
        path: await scratchDir(),
        stateDir: await scratchDir(),
      }),
    );
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(
      /apt-get needs root.*Install it with: sudo apt-get install -y roundtrip-no-such-package$/,
    );
  });

  it("makes a virtual environment and runs the real pip; when pip cannot install, says what to run", async () => {
    // The interpreter itself, not a version manager's shim, so that PATH can hold python3 alone.
    const python3 = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
      encoding: "utf8",
    }).trim();
    // PATH holds only python3, and pip is given no index at all: a real pip run that must fail.
    const [bin, stateDir] = [await scratchDir(), await scratchDir()];
    await symlink(python3, join(bin, "python3"));
    const error = await failure(
      provisionTool(TOOLS.moto_server, {
        path: bin,
        stateDir,
        env: { PIP_CONFIG_FILE: "/dev/null", PIP_NO_INDEX: "1", PIP_FIND_LINKS: "" },
      }),
    );
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(
      /^moto_server \(the AWS KMS emulator .*\) is not installed and could not be installed here: /,
    );
    expect(error.message).toMatch(/No matching distribution|Could not find a version/);
    expect(error.message).toMatch(/Install it with: pip install 'moto\[server\]'$/);
    // The environment stays for the next attempt, and the lock is released.
    expect((await stat(join(stateDir, "python", "bin", "python"))).isFile()).toBe(true);
    await expect(stat(join(stateDir, "install.lock"))).rejects.toThrow();
  });
});
