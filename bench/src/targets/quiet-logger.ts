import type { Logger } from "@roundtrip/sdk/protocol";

/**
 * Targets refuse tampered state on purpose during the soak, and each refusal is a warning; writing
 * those to stderr would measure the terminal. Errors still show, since none should happen.
 */
export const quietLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (fields, message) =>
    process.stderr.write(`${JSON.stringify({ level: "error", ...fields, message })}\n`),
};
