import type { Readable } from "node:stream";

/**
 * The framing both stdio transports speak: one JSON-RPC message per line, a line ended by "\n" alone
 * (a "\r" before it is dropped). Node's readline is not used: from Node 24 it also ends lines at U+2028
 * and U+2029, which JSON.stringify leaves raw inside strings, so it would cut such a message in two.
 */

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * One message as the line to write. U+2028 and U+2029 are escaped (the same JSON), so a peer whose
 * reader ends lines at them, as readline does from Node 24, still gets the whole message.
 */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message).replace(/[\u2028\u2029]/g, escapeSeparator)}\n`;
}

function escapeSeparator(separator: string): string {
  return separator === "\u2028" ? "\\u2028" : "\\u2029";
}

/**
 * Cuts a stream's chunks into lines. A line is decoded only once its "\n" has arrived, and the byte
 * 0x0A never occurs inside a multi-byte UTF-8 character, so a character cut across chunks comes out
 * whole. Chunks may be bytes or strings (a stream with an encoding set).
 */
export class LineSplitter {
  /** The bytes after the last "\n", waiting for the rest of their line. */
  #partial: Buffer[] = [];

  /** The lines this chunk completes, in order; blank lines included. */
  push(chunk: Uint8Array | string): string[] {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : asBuffer(chunk);
    const lines: string[] = [];
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const tail = bytes.subarray(start, end);
      lines.push(decodeLine(this.#partial.length === 0 ? tail : Buffer.concat([...this.#partial, tail])));
      this.#partial = [];
      start = end + 1;
    }
    if (start < bytes.length) this.#partial.push(bytes.subarray(start));
    return lines;
  }

  /** At the end of the input: the last line when it had no "\n". */
  end(): string | undefined {
    if (this.#partial.length === 0) return undefined;
    const line = decodeLine(Buffer.concat(this.#partial));
    this.#partial = [];
    return line;
  }
}

/** The lines of a stream, cut by a `LineSplitter`, until the stream ends. */
export async function* readLines(input: Readable | NodeJS.ReadableStream): AsyncGenerator<string> {
  const splitter = new LineSplitter();
  for await (const chunk of input) yield* splitter.push(chunk as Uint8Array | string);
  const last = splitter.end();
  if (last !== undefined) yield last;
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function decodeLine(bytes: Buffer): string {
  return bytes.toString("utf8", 0, bytes.at(-1) === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length);
}
