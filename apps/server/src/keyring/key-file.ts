import { readFile, stat } from "node:fs/promises";
import { KEYGEN_HINT, MIN_KEY_BYTES, weakSecretReason } from "@roundtrip/sealing";

export interface KeyFile {
  /** The secrets, newest (minting) first, as text: used as their UTF-8 bytes, like the Python SDK. */
  keys: string[];
}

/**
 * Reads a local key file: one secret per line, newest first; blank lines and `#` comments are
 * ignored. A secret is used as written (64 hex characters are a 64-byte secret), so every instance
 * that shares the file derives the same keys. A file group or others may read is refused: anyone who
 * can read it can forge request state, so a warning in a log nobody reads is not enough.
 */
export async function readKeyFile(path: string): Promise<KeyFile> {
  let text: string;
  let mode: number;
  try {
    [text, { mode }] = await Promise.all([readFile(path, "utf8"), stat(path)]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new Error(
      `REQUEST_STATE_KEY_FILE ${path} cannot be read (${code}); create it with one secret per line (${KEYGEN_HINT}) or unset the variable`,
    );
  }
  if ((mode & 0o077) !== 0) {
    const shown = (mode & 0o777).toString(8).padStart(3, "0");
    throw new Error(
      `REQUEST_STATE_KEY_FILE ${path} can be read by group or others (mode ${shown}); restrict it with: chmod 600 ${path}`,
    );
  }
  const keys = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (keys.length === 0) {
    throw new Error(
      `REQUEST_STATE_KEY_FILE ${path} holds no key; add one secret per line, newest first. ${KEYGEN_HINT}`,
    );
  }
  keys.forEach((key, index) => {
    if (Buffer.byteLength(key, "utf8") < MIN_KEY_BYTES) {
      throw new Error(
        `REQUEST_STATE_KEY_FILE ${path}: key ${index + 1} is shorter than ${MIN_KEY_BYTES} bytes; replace it with a longer random secret. ${KEYGEN_HINT}`,
      );
    }
    // Never the key itself in the message: only why it is no secret.
    const weak = weakSecretReason(key);
    if (weak !== undefined) {
      throw new Error(
        `REQUEST_STATE_KEY_FILE ${path}: key ${index + 1} ${weak}; replace it with a random secret. ${KEYGEN_HINT}`,
      );
    }
  });
  return { keys };
}
