import { InvalidRequestState } from "../../src/invalid-request-state.js";

/** Runs something that must be refused and returns the log-only reason it was refused with. */
export function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequestState) return error.reason;
    throw error;
  }
  throw new Error("expected InvalidRequestState, but it was accepted");
}

/** Runs something that must throw and returns the error. */
export function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error("expected an error, nothing was thrown");
}
