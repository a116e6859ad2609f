/**
 * The structured logger the SDK writes to. pino loggers satisfy it as they are; the default writes
 * warnings and errors to stderr only, since stdout may be a stdio transport's wire.
 */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

function stderrLine(level: string, fields: Record<string, unknown>, message: string): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), ...fields, msg: message })}\n`);
}

export const stderrLogger: Logger = {
  debug() {},
  info() {},
  warn: (fields, message) => stderrLine("warn", fields, message),
  error: (fields, message) => stderrLine("error", fields, message),
};

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Errors are logged by name and message; stacks only at debug (stackOf), so no payload rides along by accident. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { err: { name: error.name, message: error.message } };
  return { err: { value: typeof error } };
}

/** The stack of an Error, for a debug line of its own. */
export function stackOf(error: unknown): string | undefined {
  return error instanceof Error ? error.stack : undefined;
}
