import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ensureBackports } from "./apt-backports.js";
import { findExecutable } from "./find-executable.js";
import { withInstallLock } from "./install-lock.js";
import { manualInstall, TOOLS, type Tool, type ToolName } from "./tools.js";

const run = promisify(execFile);

/** Git-ignored; holds the virtual environment the Python tools are installed into, and the lock. */
export const DEFAULT_STATE_DIR = fileURLToPath(new URL("../../../.services", import.meta.url));

export interface EnsureOptions {
  /** Where the virtual environment and the install lock live. */
  readonly stateDir?: string;
  /** The PATH to search and to give the installers. */
  readonly path?: string;
  /** Extra variables for the installers (pip reads its configuration from the environment). */
  readonly env?: Readonly<Record<string, string>>;
  /** Progress lines: an install takes a while and should not look like a hang. */
  readonly log?: (line: string) => void;
}

/** A tool that is neither here nor installable here; the message is one line ending in what to run. */
export class ToolUnavailableError extends Error {
  override readonly name = "ToolUnavailableError";
}

const MAX_OUTPUT = 64 * 1024 * 1024;

function venvDir(stateDir: string): string {
  return join(stateDir, "python");
}

function locate(tool: Tool, stateDir: string, path: string | undefined): string | undefined {
  return findExecutable(tool.command, {
    dirs: tool.source.kind === "pip" ? [join(venvDir(stateDir), "bin")] : [],
    absolute: tool.alsoAt,
    ...(path === undefined ? {} : { path }),
  });
}

/** The last meaningful line a failed installer printed: the one that says why. */
function reasonOf(error: unknown): string {
  const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message?: string };
  const lines = `${stderr ?? ""}\n${stdout ?? ""}`
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("WARNING"));
  return lines.find((line) => /^(E:|ERROR)/.test(line)) ?? lines.at(-1) ?? message ?? String(error);
}

function canUseApt(path: string | undefined): boolean {
  return (
    process.getuid?.() === 0 && findExecutable("apt-get", path === undefined ? {} : { path }) !== undefined
  );
}

class Installer {
  private readonly stateDir: string;
  private readonly options: EnsureOptions;

  constructor(stateDir: string, options: EnsureOptions) {
    this.stateDir = stateDir;
    this.options = options;
  }

  private get env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.options.env, DEBIAN_FRONTEND: "noninteractive" };
    if (this.options.path !== undefined) env.PATH = this.options.path;
    return env;
  }

  private exec(file: string, args: readonly string[]) {
    return run(file, args, { env: this.env, maxBuffer: MAX_OUTPUT });
  }

  async apt(packages: readonly string[], backports = false): Promise<void> {
    if (!canUseApt(this.options.path))
      throw new Error("apt-get needs root, and either this is not root or there is no apt-get");
    const target = backports ? ["-t", await ensureBackports()] : [];
    this.options.log?.(`installing ${packages.join(" ")} with apt-get ${target.join(" ")}`.trimEnd());
    await this.exec("apt-get", ["update", "-qq"]);
    await this.exec("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...target, ...packages]);
  }

  async pip(requirement: string): Promise<void> {
    const venv = venvDir(this.stateDir);
    const python = join(venv, "bin", "python");
    if (findExecutable("python", { dirs: [join(venv, "bin")], path: "" }) === undefined) {
      await this.createVenv(venv);
    }
    this.options.log?.(`installing ${requirement} with pip into ${venv}`);
    await this.exec(python, ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", requirement]);
  }

  private async createVenv(venv: string): Promise<void> {
    const python3 = findExecutable(
      "python3",
      this.options.path === undefined ? {} : { path: this.options.path },
    );
    if (python3 === undefined)
      throw new Error("there is no python3 on PATH to make a virtual environment with");
    this.options.log?.(`making a Python virtual environment in ${venv}`);
    try {
      await this.exec(python3, ["-m", "venv", venv]);
    } catch (error) {
      // Debian's python3 comes without ensurepip; its python3-venv package adds it.
      await rm(venv, { recursive: true, force: true });
      if (
        !/ensurepip|python3(\.\d+)?-venv/.test(
          reasonOf(error) + String((error as { stdout?: string }).stdout),
        )
      ) {
        throw error;
      }
      await this.apt(["python3-venv"]);
      await this.exec(python3, ["-m", "venv", venv]);
    }
  }
}

/**
 * Where `tool` runs from: found on PATH (or where Debian puts it), else installed now. A Python
 * tool goes into the project's own virtual environment with pip; a server comes from Debian's
 * package when this is root with apt-get. When neither works the error says, in one line, why and
 * the one command that installs it by hand. Concurrent callers in any process of the run share one
 * install.
 */
export async function provisionTool(tool: Tool, options: EnsureOptions = {}): Promise<string> {
  const stateDir = options.stateDir ?? DEFAULT_STATE_DIR;
  const found = locate(tool, stateDir, options.path);
  if (found !== undefined) return found;
  const unavailable = (why: string) =>
    new ToolUnavailableError(
      `${tool.command} (${tool.purpose}) is not installed and could not be installed here: ${why}. Install it with: ${manualInstall(tool)}`,
    );
  if (tool.source.kind === "manual") throw unavailable("it has no package to install it from");
  const { source } = tool;
  return withInstallLock(stateDir, async () => {
    // Another process may have installed it while this one waited for the lock.
    const meanwhile = locate(tool, stateDir, options.path);
    if (meanwhile !== undefined) return meanwhile;
    const installer = new Installer(stateDir, options);
    try {
      if (source.kind === "pip") await installer.pip(source.requirement);
      else await installer.apt(source.packages, source.backports === true);
    } catch (error) {
      throw unavailable(reasonOf(error).replace(/\s+/g, " "));
    }
    const installed = locate(tool, stateDir, options.path);
    if (installed === undefined) throw unavailable(`the install finished but no ${tool.command} appeared`);
    return installed;
  });
}

const ensured = new Map<ToolName, Promise<string>>();

/** {@link provisionTool} for one of the suites' own tools, once per process. */
export function ensureTool(name: ToolName): Promise<string> {
  let pending = ensured.get(name);
  if (pending === undefined) {
    pending = provisionTool(TOOLS[name], {
      log: (line) => process.stderr.write(`[test services] ${line}\n`),
    });
    ensured.set(name, pending);
    // A failure is not remembered: the next suite asks again (someone may have installed it since).
    pending.catch(() => ensured.delete(name));
  }
  return pending;
}
