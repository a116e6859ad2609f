import { readFile } from "node:fs/promises";
import { OAuthError } from "./errors.js";

/**
 * Where a token the client presents comes from: a file its platform keeps fresh (a Kubernetes
 * projected service account token, a CI job's OIDC token), or a function. Read again for every grant,
 * since such tokens are short-lived and rotated under the client.
 */
export type TokenSource = { file: string } | ((signal?: AbortSignal) => string | Promise<string>);

/** Refuses a source that could only fail later, at the first grant. */
export function checkTokenSource(source: unknown, what: string): void {
  if (typeof source === "function") return;
  const file = (source as { file?: unknown } | undefined)?.file;
  if (typeof file === "string" && file !== "") return;
  throw new OAuthError(
    "configuration",
    `${what} must be { file: "<path>" } or a function returning the token, not ${JSON.stringify(source)}`,
  );
}

/** The current token of `source`, trimmed (files usually end with a newline). */
export async function readTokenSource(source: TokenSource, what: string, signal?: AbortSignal) {
  let token: string;
  try {
    token =
      typeof source === "function"
        ? await source(signal)
        : await readFile(source.file, { encoding: "utf8", signal });
  } catch (error) {
    const where = typeof source === "function" ? "its function failed" : `reading ${source.file} failed`;
    throw new OAuthError("configuration", `${what}: ${where} (${(error as Error).message})`, {
      cause: error,
    });
  }
  token = typeof token === "string" ? token.trim() : "";
  if (token === "") {
    const where = typeof source === "function" ? "its function" : source.file;
    throw new OAuthError("configuration", `${what} is empty: ${where} gave no token`);
  }
  return token;
}
