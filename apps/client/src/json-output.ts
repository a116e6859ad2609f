import { safeBlock } from "./terminal/safe-text.js";

/**
 * Writes the command's result on stdout: one JSON document with --json (exact: JSON escapes every
 * control), plain text otherwise, where a server's words cannot drive the terminal (safeBlock).
 */
export interface ResultWriter {
  readonly json: boolean;
  /** The machine-readable document (--json). */
  document(value: unknown): void;
  /** Plain text for a person (without --json). */
  text(text: string): void;
}

export function stdoutWriter(json: boolean): ResultWriter {
  return {
    json,
    document: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    text: (text) => {
      const safe = safeBlock(text.endsWith("\n") ? text.slice(0, -1) : text);
      process.stdout.write(`${safe}\n`);
    },
  };
}
