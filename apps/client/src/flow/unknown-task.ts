import { McpError } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";

/** A tasks method answered -32602 for a task id: the server no longer has the task (or never did). */
export function isUnknownTask(error: unknown): error is McpError {
  return error instanceof McpError && error.code === -32602;
}

/**
 * A saved task its server no longer knows: following or cancelling it can never work again, so the
 * person learns why and which file to delete; the file itself is kept, as it may be the wrong account.
 */
export function unknownSavedTask(server: string, id: string, file: string, error: McpError): CliError {
  return new CliError(
    ExitCode.failure,
    `${server} no longer knows saved task ${id} (${error.message}): its time on the server may have passed, or you are signed in as someone else. Delete ${file} to forget it`,
    { cause: error },
  );
}
