import { ConnectionFailedError, systemCodeOf } from "./http-errors.js";

const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * Whether fetch, or the reading of its body, failed because the connection closed under the request:
 * before any answer came (most often the keep-alive race, a pooled connection the server closed as
 * idle just as the request went out on it), or in the middle of its response stream. A 2026-07-28 request may simply go again (as when its response stream breaks off); a
 * 2025-era one only when it changes nothing (a list, a read, a notification), since its server may
 * have acted on it.
 */
export function isConnectionReset(error: unknown): boolean {
  // Before an answer, fetch's failure comes named (ConnectionFailedError); while reading the body, bare.
  if (error instanceof ConnectionFailedError)
    return error.reason !== undefined && RESET_CODES.has(error.reason);
  if (!(error instanceof TypeError)) return false;
  const code = systemCodeOf(error);
  return code !== undefined && RESET_CODES.has(code);
}
