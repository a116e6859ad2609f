/** Writes the command's result on stdout: one JSON document with --json, plain text otherwise. */
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
    text: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  };
}
