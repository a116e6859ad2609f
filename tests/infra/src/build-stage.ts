import { copyFile, lstat, mkdir, readlink, symlink } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import type { Env, Instruction } from "dockerfile-ast";
import { dockerignore, flags, type Stage } from "./dockerfile.js";
import { readRepoFile, repoPath, run } from "./repo.js";

/**
 * The files `docker build .` would send from this working tree: what git tracks or would track, as
 * they are on disk now (other people's uncommitted work included, deleted files not), minus what
 * .dockerignore keeps out.
 */
export async function buildContext(): Promise<string[]> {
  const { stdout } = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoPath(),
    maxBuffer: 64 * 1024 * 1024,
  });
  const ignored = dockerignore(await readRepoFile(".dockerignore"));
  const files: string[] = [];
  for (const file of new Set(stdout.split("\0").filter((path) => path !== ""))) {
    if (ignored(file)) continue;
    const entry = await lstat(repoPath(file)).catch(() => undefined);
    if (entry?.isFile() || entry?.isSymbolicLink()) files.push(file);
  }
  return files.sort();
}

export interface StageBuildOptions {
  /** Stands in for the image's root filesystem: container path /x is root/x. */
  readonly root: string;
  /** Relative paths from the repository root, as buildContext() lists them. */
  readonly context: readonly string[];
  /** The variables every RUN starts with, before the Dockerfile's ENV lines. */
  readonly env: Readonly<Record<string, string>>;
}

/** The stage and the stages it is based on, oldest first. */
export function stageChain(stages: readonly Stage[], name: string): Stage[] {
  const chain: Stage[] = [];
  for (let stage = stages.find((s) => s.name === name); stage; ) {
    chain.unshift(stage);
    const base = stage.base;
    stage = stages.find((s) => s.name === base);
  }
  if (chain.length === 0) throw new Error(`no stage named ${name}`);
  return chain;
}

const PNPM_INSTALL = /^npm install --global(?: --\S+)* pnpm@(\S+)$/;

/**
 * Builds a stage of the Dockerfile without a container engine: its instructions and those of the
 * stages beneath it run in order, on this machine, inside a scratch root. Only what the build stages
 * use is modelled; any other instruction fails, so a Dockerfile change cannot slip past unexecuted.
 * Resolves with the stage's final WORKDIR, as a path in the image.
 */
export async function buildStage(
  stages: readonly Stage[],
  name: string,
  options: StageBuildOptions,
): Promise<string> {
  const inRoot = (containerPath: string) => join(options.root, containerPath);
  let cwd = "/";
  const env: Record<string, string> = { ...options.env };
  for (const stage of stageChain(stages, name)) {
    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      if (keyword === "WORKDIR") {
        cwd = posix.resolve(cwd, instruction.getArgumentsContent() ?? "/");
        await mkdir(inRoot(cwd), { recursive: true });
      } else if (keyword === "ENV") {
        for (const property of (instruction as Env).getProperties()) {
          env[property.getName()] = property.getValue() ?? "";
        }
      } else if (keyword === "COPY" && flags(instruction).size === 0) {
        await copyFromContext(instruction, cwd, inRoot, options.context);
      } else if (keyword === "RUN" && flags(instruction).size === 0) {
        await runCommand(instruction.getArgumentsContent() ?? "", inRoot(cwd), env, inRoot);
      } else {
        throw new Error(`${stage.name ?? stage.base}: ${keyword} is not modelled by buildStage`);
      }
    }
  }
  return cwd;
}

async function copyFromContext(
  copy: Instruction,
  cwd: string,
  inRoot: (containerPath: string) => string,
  context: readonly string[],
) {
  const args = copy.getArguments().map((arg) => arg.getValue());
  const destination = posix.resolve(cwd, args.at(-1)!);
  const sources = args.slice(0, -1);
  const intoDirectory = sources.length > 1 || args.at(-1)!.endsWith("/");
  for (const source of sources.map((path) => posix.normalize(path).replace(/\/$/, ""))) {
    if (/[*?[]/.test(source)) throw new Error(`COPY ${source}: wildcards are not modelled`);
    const pairs: Array<[string, string]> = context.includes(source)
      ? [[source, intoDirectory ? posix.join(destination, posix.basename(source)) : destination]]
      : context
          .filter((file) => source === "." || file.startsWith(`${source}/`))
          .map((file) => [
            file,
            posix.join(destination, source === "." ? file : file.slice(source.length + 1)),
          ]);
    if (pairs.length === 0) throw new Error(`COPY ${source}: not in the build context`);
    for (const [from, to] of pairs) {
      const target = inRoot(to);
      await mkdir(dirname(target), { recursive: true });
      const entry = await lstat(repoPath(from));
      if (entry.isSymbolicLink()) await symlink(await readlink(repoPath(from)), target);
      else await copyFile(repoPath(from), target);
    }
  }
}

async function runCommand(
  command: string,
  cwd: string,
  env: Record<string, string>,
  inRoot: (containerPath: string) => string,
) {
  // Installing pnpm globally would change this shared machine; the one on PATH must be that release,
  // or the rest would not be what the image runs.
  const pnpm = command.match(PNPM_INSTALL)?.[1];
  if (pnpm !== undefined) {
    const { stdout } = await run("pnpm", ["--version"], { env });
    if (stdout.trim() !== pnpm) throw new Error(`the image installs pnpm ${pnpm}, PATH has ${stdout.trim()}`);
    return;
  }
  // Absolute paths in a RUN line are paths in the image, such as the deploy target /out.
  const rebased = command.replace(/(^|\s)(\/[^\s;&|"')]*)/g, (_, space: string, path: string) => {
    return space + inRoot(path);
  });
  try {
    await run("sh", ["-c", rebased], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    const output = `${stdout ?? ""}${stderr ?? ""}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`RUN ${command}\nexited with ${code}:\n${output}`);
  }
}
