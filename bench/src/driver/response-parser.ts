import type { RawReply } from "../wire/reply.js";

/** A malformed answer: the target broke HTTP/1.1, which counts as an error like a wrong answer. */
export class HttpParseError extends Error {
  override readonly name = "HttpParseError";
}

export interface ParsedReply {
  reply: RawReply;
  /** False when the server asked to close the connection after this answer. */
  keepAlive: boolean;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");
const MAX_HEAD_BYTES = 64 * 1024;

interface Head {
  status: number;
  contentType: string | undefined;
  keepAlive: boolean;
  /** The body's byte count, or "chunked". */
  length: number | "chunked";
}

/**
 * Incremental HTTP/1.1 response reader for one connection: a status line, headers, then a body
 * framed by Content-Length or chunked transfer coding (the framings our targets use, JSON or SSE).
 * `push` returns the reply once it is complete.
 */
export class ResponseParser {
  #buffer: Buffer = Buffer.alloc(0);
  #head: Head | undefined;
  #chunks: Buffer[] = [];

  push(chunk: Buffer): ParsedReply | undefined {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (this.#head === undefined) {
      const end = this.#buffer.indexOf(HEADER_END);
      if (end < 0) {
        if (this.#buffer.length > MAX_HEAD_BYTES) throw new HttpParseError("response head too large");
        return undefined;
      }
      this.#head = parseHead(this.#buffer.toString("latin1", 0, end));
      this.#buffer = this.#buffer.subarray(end + HEADER_END.length);
    }
    const head = this.#head;
    const body = head.length === "chunked" ? this.#readChunked() : this.#readSized(head.length);
    if (body === undefined) return undefined;
    this.#head = undefined;
    this.#chunks = [];
    if (this.#buffer.length > 0) throw new HttpParseError("bytes after a complete response");
    return {
      reply: { status: head.status, contentType: head.contentType, body: body.toString("utf8") },
      keepAlive: head.keepAlive,
    };
  }

  #readSized(length: number): Buffer | undefined {
    if (this.#buffer.length < length) return undefined;
    const body = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    return body;
  }

  #readChunked(): Buffer | undefined {
    for (;;) {
      const lineEnd = this.#buffer.indexOf(CRLF);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(this.#buffer.toString("latin1", 0, lineEnd).split(";")[0] ?? "", 16);
      if (!Number.isFinite(size) || size < 0) throw new HttpParseError("bad chunk size");
      const dataStart = lineEnd + CRLF.length;
      if (size === 0) {
        // No trailers from our targets: the last chunk is followed by one empty line.
        if (this.#buffer.length < dataStart + CRLF.length) return undefined;
        this.#buffer = this.#buffer.subarray(dataStart + CRLF.length);
        return Buffer.concat(this.#chunks);
      }
      if (this.#buffer.length < dataStart + size + CRLF.length) return undefined;
      this.#chunks.push(this.#buffer.subarray(dataStart, dataStart + size));
      this.#buffer = this.#buffer.subarray(dataStart + size + CRLF.length);
    }
  }
}

function parseHead(text: string): Head {
  const lines = text.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!status?.[1]) throw new HttpParseError(`bad status line: ${lines[0]}`);
  const head: Head = { status: Number(status[1]), contentType: undefined, keepAlive: true, length: 0 };
  let sized = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new HttpParseError(`bad header line: ${line}`);
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-type") head.contentType = value;
    else if (name === "content-length") {
      head.length = Number(value);
      if (!Number.isSafeInteger(head.length) || head.length < 0) {
        throw new HttpParseError(`bad Content-Length: ${value}`);
      }
      sized = true;
    } else if (name === "transfer-encoding" && value.toLowerCase().includes("chunked")) {
      head.length = "chunked";
      sized = true;
    } else if (name === "connection" && value.toLowerCase() === "close") head.keepAlive = false;
  }
  if (!sized && head.status !== 204 && head.status !== 304 && head.status >= 200) {
    throw new HttpParseError("a response without Content-Length or chunked coding");
  }
  return head;
}
