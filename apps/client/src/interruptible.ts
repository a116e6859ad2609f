import { CliError, ExitCode } from "./exit-codes.js";

/**
 * Waits for `work` unless the person presses Ctrl+C (SIGINT) first: then it fails with exit code 130
 * and `message`, so the command's cleanup (closing listeners, keeping what it has not replaced) runs
 * instead of the process dying mid-way.
 */
export async function untilInterrupted<T>(work: Promise<T>, message: string): Promise<T> {
  let onInterrupt: () => void = () => {};
  const interrupted = new Promise<never>((_resolve, reject) => {
    onInterrupt = () => reject(new CliError(ExitCode.interrupted, message));
  });
  process.once("SIGINT", onInterrupt);
  try {
    return await Promise.race([work, interrupted]);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}
