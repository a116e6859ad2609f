import type { DestinationStream } from "pino";

export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

/** A pino destination that keeps every line, for assertions on what the server logged. */
export class LogCapture implements DestinationStream {
  readonly #chunks: string[] = [];

  write(chunk: string): void {
    this.#chunks.push(chunk);
  }

  text(): string {
    return this.#chunks.join("");
  }

  lines(): LogLine[] {
    return this.text()
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as LogLine);
  }
}
