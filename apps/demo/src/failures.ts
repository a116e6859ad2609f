// How a step fails. The runner shows a DemoFailure as its message alone, since it already says what
// went wrong; anything else is a bug in the demo and is shown with its stack.

export class DemoFailure extends Error {}

/** The person pressed Ctrl+C inside a prompt: the CLI had the terminal in raw mode, so only it saw it. */
export class Interrupted extends Error {}

/** An unexpected error as a developer wants to see it: with its stack. */
export const stackOf = (error: unknown) =>
  error instanceof Error ? (error.stack ?? String(error)) : String(error);
