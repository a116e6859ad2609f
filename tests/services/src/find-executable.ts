import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first executable `command` in `dirs`, then on PATH, then at one of `absolute`; undefined when
 * there is none. Looked up in-process rather than with `command -v`, so it needs no shell.
 */
export function findExecutable(
  command: string,
  options: { dirs?: readonly string[]; absolute?: readonly string[]; path?: string } = {},
): string | undefined {
  const pathDirs = (options.path ?? process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const dir of [...(options.dirs ?? []), ...pathDirs]) {
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return options.absolute?.find((path) => isAbsolute(path) && isExecutableFile(path));
}
