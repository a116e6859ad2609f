import { McpError } from "../../../protocol/errors.js";

/**
 * Cursors name the last entry of the page they follow (its URI), so a page is never split and an
 * entry added or removed between pages moves no other entry to a page already read.
 */
export function encodeCursor(lastUri: string): string {
  return Buffer.from(lastUri, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string, method: string): string {
  const uri = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (!uri.includes("://")) {
    throw McpError.invalidParams(
      `Invalid cursor: this server did not issue it; send ${method} without a cursor to start from the first page`,
    );
  }
  return uri;
}

/** The page after `cursor` of entries sorted by URI, and the cursor of the next page if any. */
export function page<T>(
  sorted: readonly T[],
  uriOf: (entry: T) => string,
  cursor: string | undefined,
  pageSize: number,
  method: string,
): { entries: T[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, method);
  const rest = after === undefined ? sorted : sorted.filter((entry) => uriOf(entry) > after);
  const entries = rest.slice(0, pageSize);
  const last = entries.at(-1);
  return rest.length > pageSize && last !== undefined
    ? { entries, nextCursor: encodeCursor(uriOf(last)) }
    : { entries };
}
