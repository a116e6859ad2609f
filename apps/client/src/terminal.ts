import { styleText } from "node:util";
import { safeOwnLine } from "./terminal/safe-text.js";
import { plainStatus, type StatusLine, silentStatus, spinnerStatus } from "./terminal/status-line.js";

/**
 * The person's side of the CLI. Questions, notices and prompts go to stderr, so stdout carries only the
 * command's result (one JSON document with --json) and stays safe to pipe.
 */
export interface Terminal {
  /** A person can answer: stdin and stderr are terminals. */
  readonly interactive: boolean;
  /** stderr shows colours (a terminal, and no NO_COLOR). */
  readonly colors: boolean;
  /** -v: a line for each round (what the server asked, what was answered). Off with --json. */
  readonly verbose: boolean;
  /**
   * A line for the person (progress, who is asking, what was saved). Server text in it must have gone
   * through safeInline or safeBlock (terminal/safe-text.ts); any other control left in it is escaped.
   */
  notice(line: string): void;
  /**
   * What the CLI waits on (a slow round, a poll, an approval in the browser): a spinner on a terminal,
   * a plain line otherwise, nothing with --json. Cleared by the next notice.
   */
  readonly status: StatusLine;
  /**
   * Emphasis for the part of a line that matters most (the host of a URL, the asking server). Colour
   * only: without colours the text is left as it is, so a URL stays whole and can be copied.
   */
  strong(text: string): string;
  dim(text: string): string;
  /** Ends every style a line may have started: empty without colours. */
  reset(): string;
  /** The stream prompts are drawn on. */
  readonly output: NodeJS.WriteStream;
  readonly input: NodeJS.ReadStream;
}

export interface TerminalOptions {
  /** --json: stderr keeps questions and errors only, no progress. */
  json?: boolean;
  verbose?: boolean;
}

export function processTerminal(options: TerminalOptions = {}): Terminal {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const colors = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
  const write = (text: string) => process.stderr.write(text);
  const status = options.json
    ? silentStatus
    : process.stderr.isTTY
      ? spinnerStatus(write)
      : plainStatus(write);
  return {
    interactive,
    colors,
    verbose: options.verbose === true && options.json !== true,
    notice: (line) => {
      status.clear();
      write(`${safeOwnLine(line, colors)}\n`);
    },
    status,
    strong: (text) => (colors ? styleText(["bold", "yellow"], text) : text),
    dim: (text) => (colors ? styleText("dim", text) : text),
    reset: () => (colors ? "\x1b[0m" : ""),
    output: process.stderr,
    input: process.stdin,
  };
}
