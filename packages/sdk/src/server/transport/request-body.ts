import type { IncomingMessage } from "node:http";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { deeperThan } from "../params-limits.js";
import { HttpError } from "./http-errors.js";

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Levels of arrays and objects a body may nest, the message itself being level 1: twice the default
 * depth of `arguments` and `inputResponses` (paramsLimits), with room for the envelope around them.
 */
export const DEFAULT_MAX_BODY_DEPTH = 128;

/** The whole body, refused beyond `limit` bytes as soon as it gets there. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(bodyTooLarge(limit));
  // Already read to the end by someone else: no more events will come.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // The rest is read and dropped: a client still sending would otherwise stall before it reads the 413.
        req.resume();
        reject(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error("the client closed the request before sending its whole body"));
    };
    const cleanup = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/** A body a framework read for us, held to the same limit as one read here. */
export function withinLimit(body: unknown, limit: number): unknown {
  if ((Buffer.isBuffer(body) || typeof body === "string") && Buffer.byteLength(body) > limit) {
    throw bodyTooLarge(limit);
  }
  return body;
}

export function bodyTooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    `Request body exceeds ${limit} bytes; send a smaller request or raise maxBodyBytes`,
    { rpcCode: ErrorCode.InvalidRequest },
  );
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, found in one pass over its code
 * units without building anything. Bytes are read as they are: in UTF-8 no byte of a multi-byte
 * character is an ASCII bracket or quote. Up to the first error of malformed text the count is the
 * one a parser would reach, and a parser stops there.
 */
function textNestsDeeperThan(text: Buffer | string, maxDepth: number): boolean {
  const unitAt =
    typeof text === "string" ? (i: number) => text.charCodeAt(i) : (i: number) => text[i] as number;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const unit = unitAt(i);
    if (inString) {
      if (unit === BACKSLASH) i++;
      else if (unit === QUOTE) inString = false;
    } else if (unit === QUOTE) inString = true;
    else if (unit === OPEN_ARRAY || unit === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (unit === CLOSE_ARRAY || unit === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * Refuses (400, -32700) a body nesting deeper than `maxDepth`, before any parser walks it: a few MiB
 * of brackets cost a parser, and every recursive walk after it, far more than their size suggests.
 */
export function checkBodyDepth(body: unknown, maxDepth: number): void {
  const tooDeep =
    Buffer.isBuffer(body) || typeof body === "string"
      ? textNestsDeeperThan(body, maxDepth)
      : deeperThan(body, maxDepth);
  if (!tooDeep) return;
  throw new HttpError(
    400,
    `Parse error: the request body nests arrays and objects deeper than ${maxDepth} levels; send a flatter message or raise maxBodyDepth`,
    { rpcCode: ErrorCode.ParseError },
  );
}

/**
 * Raw bytes or text are parsed, once their depth is within `maxDepth`; a value a framework already
 * parsed is held to the same depth and taken as it is.
 */
export function decodeJson(body: unknown, maxDepth: number): unknown {
  checkBodyDepth(body, maxDepth);
  if (Buffer.isBuffer(body) || typeof body === "string") {
    try {
      return JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
    } catch {
      throw McpError.parseError("Parse error: the request body is not valid JSON");
    }
  }
  return body;
}
