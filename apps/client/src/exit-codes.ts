/**
 * The process exit codes of `roundtrip`, documented in the README. Scripts branch on them, so each
 * one means one thing and none is ever reused for something else.
 */
export const ExitCode = {
  ok: 0,
  /** The server, the network or the protocol failed; the message says which. */
  failure: 1,
  /**
   * The command line, the configuration or an --answers file is wrong, nothing was sent; or the server
   * refused the arguments as invalid (-32602, or a tool result saying so).
   */
  usage: 2,
  /** No usable credentials: log in (again), or the authorization server refused. */
  auth: 3,
  /** The server asked for input that neither --answers, --yes nor a terminal could give. */
  inputNeeded: 4,
  /** The tool ran and reported an error result (isError). */
  toolError: 5,
  /** The person refused a sampling request: nothing was sent back and the call was abandoned. */
  refused: 6,
  /** A question was declined or cancelled (by you or --answers); the server finished without its answer. */
  declined: 7,
  /** The flow was saved as pending (--detach, or Ctrl-C while waiting for a page): `roundtrip resume <id>`. */
  detached: 10,
  /** Interrupted (Ctrl+C); nothing more was sent. */
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * What each exit code means, in a few words (the README's table, shorter): for a program that runs
 * `roundtrip` and reports why a run failed, such as `pnpm demo`.
 */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCodeValue, string>> = {
  [ExitCode.ok]: "done",
  [ExitCode.failure]: "the server, the network or the protocol failed",
  [ExitCode.usage]: "bad command line, configuration, answers file or arguments",
  [ExitCode.auth]: "credentials missing or refused",
  [ExitCode.inputNeeded]: "the server asked for input that had no answer",
  [ExitCode.toolError]: "the tool reported an error result",
  [ExitCode.refused]: "the sampling request was refused",
  [ExitCode.declined]: "a question was declined or cancelled",
  [ExitCode.detached]: "the flow was saved with --detach",
  [ExitCode.interrupted]: "interrupted",
};

/** An error the CLI reports as it is: the message says what to do, the code is the exit status. */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode: ExitCodeValue;

  constructor(exitCode: ExitCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.exitCode = exitCode;
  }
}
