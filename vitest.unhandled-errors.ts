import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Reporter } from "vitest/reporters";

/**
 * Writes the errors vitest caught outside any test (an unhandled rejection, an uncaught exception) to
 * its own JSON file: vitest's JSON report counts such a run as passed even though it exits 1, so
 * without this the CI's closing line could read "0 failed" over a failed run.
 */
export class UnhandledErrorsReport implements Reporter {
  constructor(private readonly outputFile: string) {}

  onTestRunEnd(_modules: unknown, unhandledErrors: ReadonlyArray<unknown>): void {
    const errors = unhandledErrors.map((error) => {
      const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
      return `${typeof name === "string" ? name : "Error"}: ${typeof message === "string" ? message.split("\n")[0] : String(error)}`;
    });
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, JSON.stringify({ unhandledErrors: errors }));
  }
}
