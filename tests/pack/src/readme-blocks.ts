/**
 * The TypeScript examples of a README or a docs page, as programs to compile. The convention, also
 * stated at the top of each README:
 *
 * - a fenced block tagged `ts` is a complete program (its own imports), type-checked on its own;
 * - a block tagged `ts run` is also compiled and run with node, and must exit 0 on its own;
 * - `console.log(...); // "text"` (or a JSON array or object after `//`) names a line the program
 *   must print, in that order among its other output;
 * - blocks in any other language (sh, json, ...) are not checked.
 */

export interface CodeBlock {
  /** The page (a README or a docs page), as given to readmeBlocks, for messages. */
  readonly readme: string;
  /** 1-based README line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  readonly run: boolean;
}

const OPENING_FENCE = /^( *)(`{3,}|~{3,})([^`]*)$/;

/** Every `ts` block of a page, with its indentation (blocks inside list items) removed. */
export function readmeBlocks(readme: string, text: string): CodeBlock[] {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = OPENING_FENCE.exec(lines[index]!);
    if (!opening) continue;
    const [, indent = "", fence = "", info = ""] = opening;
    const openingLine = index + 1;
    const closing = new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`);
    const start = index + 1;
    let end = start;
    while (end < lines.length && !closing.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`${readme}:${openingLine}: the code block is never closed`);
    index = end;
    const [language = "", ...tags] = info.trim().split(/\s+/);
    if (language !== "ts") continue;
    // A misspelt tag would quietly turn a program that should run into one that is only compiled.
    if (tags.length > 1 || (tags.length === 1 && tags[0] !== "run")) {
      throw new Error(`${readme}:${openingLine}: unknown tag "${tags.join(" ")}"; use \`ts\` or \`ts run\``);
    }
    const code = lines
      .slice(start, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join("\n");
    blocks.push({ readme, line: start + 1, code, run: tags[0] === "run" });
  }
  return blocks;
}

/**
 * The block as a module of its own whose line numbers are the page's, so that a compiler error
 * points at the page line to fix. `export {}` keeps a block without imports out of the global scope.
 */
export function moduleSource(block: CodeBlock): string {
  return `${"\n".repeat(block.line - 1)}${block.code}\nexport {};\n`;
}

const EXPECTATION = /console\.log\(.*\);?\s*\/\/\s*(["[{].*)$/;

/** The printed lines a block's comments promise: strings as they are, other values as JSON. */
export function expectedOutput(block: CodeBlock): unknown[] {
  return block.code.split("\n").flatMap((line, offset) => {
    const comment = EXPECTATION.exec(line)?.[1];
    if (comment === undefined) return [];
    try {
      return [JSON.parse(comment) as unknown];
    } catch {
      throw new Error(`${block.readme}:${block.line + offset}: the expected output ${comment} is not JSON`);
    }
  });
}

/**
 * Whether the expected values appear among the printed lines in order. Returns the first one missing,
 * or undefined when all are there.
 */
export function missingOutput(expected: readonly unknown[], stdout: string): unknown {
  const lines = stdout.split("\n");
  let from = 0;
  for (const value of expected) {
    const found = lines.findIndex((line, index) => index >= from && printedAs(line, value));
    if (found === -1) return value;
    from = found + 1;
  }
  return undefined;
}

function printedAs(line: string, value: unknown): boolean {
  if (typeof value === "string") return line === value;
  try {
    return JSON.stringify(JSON.parse(line)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
