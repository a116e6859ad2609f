import { stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Root } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "./exit-codes.js";

/**
 * The directories this client shares with servers that ask for roots: each --root, and none unless
 * given, since a root tells the server what it may look at. Each must exist and be a directory, so a
 * typo fails before anything is sent.
 */
export async function rootsFrom(dirs: readonly string[], cwd = process.cwd()): Promise<Root[]> {
  const roots: Root[] = [];
  for (const dir of dirs) roots.push(await rootOf(resolve(cwd, dir), dir));
  return roots;
}

async function rootOf(path: string, given: string): Promise<Root> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    throw new CliError(ExitCode.usage, `--root ${given}: no such directory`);
  }
  if (!isDirectory) throw new CliError(ExitCode.usage, `--root ${given}: not a directory`);
  return { uri: pathToFileURL(path).href, name: basename(path) || path };
}
