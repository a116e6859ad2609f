// What a step is, and what it is given: everything one run of the demo holds, in one object made per
// run, so no step reaches for state of the module it lives in.
import type { AliceBrowser } from "./alice.js";
import type { CliSteps } from "./cli-steps.js";
import type { RoundWatch } from "./rounds.js";
import type { Stack } from "./stack.js";

export interface DemoRun {
  /** A person answers on this terminal; otherwise answers files do, and the output is checked. */
  interactive: boolean;
  /** Two instances behind one URL, on the KMS emulator and Redis; false when those cannot be had. */
  fleet: boolean;
  stack: Stack;
  alice: AliceBrowser;
  rounds: RoundWatch;
  cli: CliSteps;
}

export interface Step {
  name: string;
  /** Every later step depends on it: a failure stops the demo. */
  required?: boolean;
  /** What the step shows; the summarize step says who answers, which depends on the mode. */
  heading: string | { interactive: string; scripted: string };
  /** Runs the step and returns what the summary says about it. */
  run(run: DemoRun): Promise<string>;
}

export function headingOf(step: Step, interactive: boolean): string {
  if (typeof step.heading === "string") return step.heading;
  return interactive ? step.heading.interactive : step.heading.scripted;
}
