import { styleText } from "node:util";

/**
 * The person's side of the CLI. Questions, notices and prompts go to stderr, so stdout carries only the
 * command's result (one JSON document with --json) and stays safe to pipe.
 */
export interface Terminal {
  /** A person can answer: stdin and stderr are terminals. */
  readonly interactive: boolean;
  /** A line for the person (progress, who is asking, what was saved). */
  notice(line: string): void;
  /** Emphasis for the part of a line that matters most (the domain of a URL, the asking server). */
  strong(text: string): string;
  dim(text: string): string;
  /** The stream prompts are drawn on. */
  readonly output: NodeJS.WriteStream;
  readonly input: NodeJS.ReadStream;
}

export function processTerminal(): Terminal {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const colors = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
  return {
    interactive,
    notice: (line) => process.stderr.write(`${line}\n`),
    // Without colors the emphasis must still show, so it falls back to brackets a reader can see.
    strong: (text) => (colors ? styleText(["bold", "yellow"], text) : `[${text}]`),
    dim: (text) => (colors ? styleText("dim", text) : text),
    output: process.stderr,
    input: process.stdin,
  };
}
