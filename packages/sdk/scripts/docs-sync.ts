/**
 * The SDK's documentation (README.md and docs/*.md) shows no code of its own: each TypeScript block
 * follows a marker naming the file it copies, relative to the page,
 *
 *     <!-- include: examples/server/tool-error.ts -->
 *     ```ts
 *     ...the file, verbatim...
 *     ```
 *
 * so the examples are compiled as files (the package's typecheck, and tests/pack against the packed
 * tarball) and the pages only show them. `pnpm --filter @roundtrip/sdk docs:sync` (this module, run
 * by node) rewrites every included block from its file; test/docs.test.ts fails while one differs.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const INCLUDE = /^<!-- include: (\S+) -->$/;
const OPENING_FENCE = /^(`{3,})(\S*)(.*)$/;

/** A block of a page that copies a file. */
export interface Include {
  /** The file, relative to the page's folder, as the marker names it. */
  readonly file: string;
  /** 1-based page line of the marker. */
  readonly line: number;
  /** The block's language (`ts`) and tags (` run`), as its opening fence says. */
  readonly info: string;
  /** The block's lines, between its fences. */
  readonly code: string;
  /** 0-based indexes of the block's first code line and of its closing fence. */
  readonly start: number;
  readonly end: number;
}

/** A fenced block that opens without a marker. */
export interface Block {
  readonly line: number;
  readonly info: string;
}

function closingFence(lines: readonly string[], from: number, fence: string, where: string): number {
  let end = from;
  while (end < lines.length && lines[end] !== fence) end++;
  if (end === lines.length) throw new Error(`${where}: the code block is never closed by ${fence}`);
  return end;
}

/** Every include of a page, and every other fenced block (`page` names it in errors). */
export function pageBlocks(page: string, text: string): { includes: Include[]; others: Block[] } {
  const lines = text.split("\n");
  const includes: Include[] = [];
  const others: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const marker = INCLUDE.exec(lines[index]!);
    const opening = OPENING_FENCE.exec(lines[marker ? index + 1 : index] ?? "");
    if (marker) {
      if (!opening) throw new Error(`${page}:${index + 1}: an include marker is followed by no code block`);
      const [, fence = "", language = "", tags = ""] = opening;
      const start = index + 2;
      const end = closingFence(lines, start, fence, `${page}:${index + 2}`);
      const code = lines.slice(start, end).join("\n");
      includes.push({ file: marker[1]!, line: index + 1, info: `${language}${tags}`, code, start, end });
      index = end;
    } else if (opening) {
      const [, fence = "", language = "", tags = ""] = opening;
      others.push({ line: index + 1, info: `${language}${tags}` });
      index = closingFence(lines, index + 1, fence, `${page}:${index + 1}`);
    }
  }
  return { includes, others };
}

/** The page with every included block replaced by its file, read by `read` (the name as marked). */
export function syncedPage(page: string, text: string, read: (file: string) => string): string {
  const lines = text.split("\n");
  // From the last block up, so that the indexes of the ones above stay right.
  for (const include of pageBlocks(page, text).includes.reverse()) {
    const code = read(include.file).replace(/\n$/, "");
    lines.splice(include.start, include.end - include.start, ...code.split("\n"));
  }
  return lines.join("\n");
}

/** The package folder (packages/sdk). */
export const packageDir = fileURLToPath(new URL("..", import.meta.url));

/** The pages whose blocks include files: the README and every page of docs/. */
export function documentationPages(dir = packageDir): string[] {
  const docs = readdirSync(join(dir, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(dir, "docs", name));
  return [join(dir, "README.md"), ...docs];
}

/** The page as it should read: its included blocks rewritten from their files. */
export function syncedFile(path: string): string {
  const read = (file: string) => readFileSync(join(dirname(path), file), "utf8");
  return syncedPage(relative(packageDir, path), readFileSync(path, "utf8"), read);
}

function main(): void {
  for (const path of documentationPages()) {
    const synced = syncedFile(path);
    if (synced === readFileSync(path, "utf8")) continue;
    writeFileSync(path, synced);
    console.log(`rewrote the examples of ${relative(packageDir, path)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
