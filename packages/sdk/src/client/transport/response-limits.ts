import { ResponseTooLargeError } from "./http-errors.js";

/** How much of a server's answer the HTTP transport holds in memory at once. */
export interface ResponseLimits {
  /** The largest response body read whole (a JSON answer, an error's body), in bytes. */
  maxResponseBytes: number;
  /**
   * The largest single SSE event, in characters of its text (bytes, for the ASCII of JSON). A stream
   * as a whole has no limit: each event is handled and let go.
   */
  maxEventChars: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_RESPONSE_LIMITS: Readonly<ResponseLimits> = {
  maxResponseBytes: 16 * MIB,
  maxEventChars: 16 * MIB,
};

/** The configured limits, each checked, the defaults for the rest. */
export function responseLimits(configured: Partial<ResponseLimits>): ResponseLimits {
  const limits = { ...DEFAULT_RESPONSE_LIMITS };
  for (const key of Object.keys(limits) as (keyof ResponseLimits)[]) {
    const value = configured[key];
    if (value === undefined) continue;
    if (!(value > 0) || !(Number.isSafeInteger(value) || value === Number.POSITIVE_INFINITY)) {
      throw new RangeError(`${key} must be a whole number above 0 (or Infinity for no limit), not ${value}`);
    }
    limits[key] = value;
  }
  return limits;
}

/**
 * Reads a response body as text, stopping as soon as it passes `maxBytes`: the body is cancelled then,
 * so the rest never arrives, and a declared Content-Length over the limit is refused before reading.
 */
export async function readBodyText(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new ResponseTooLargeError(url, "maxResponseBytes", maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new ResponseTooLargeError(url, "maxResponseBytes", maxBytes);
      }
      parts.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
  parts.push(decoder.decode());
  return parts.join("");
}
