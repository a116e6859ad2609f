import type { IncomingMessage } from "node:http";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { HttpError } from "./http-errors.js";

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

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

/** Raw bytes or text are parsed; a value a framework already parsed is taken as it is. */
export function decodeJson(body: unknown): unknown {
  if (Buffer.isBuffer(body) || typeof body === "string") {
    try {
      return JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
    } catch {
      throw McpError.parseError("Parse error: the request body is not valid JSON");
    }
  }
  return body;
}
