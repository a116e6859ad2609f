// Walks the steps in order, each under its heading; a failed step is reported and the next one runs,
// unless the failed one was required. Then, on a fleet, reads what the run left in Redis, and ends
// with the summary. Returns the demo's exit code.
import { performance } from "node:perf_hooks";
import { DemoFailure, Interrupted, stackOf } from "./failures.js";
import { type Failure, heading, note, paint, type StepResult, say, summarize } from "./narration.js";
import { redisAtRest } from "./redis-at-rest.js";
import { type DemoRun, headingOf, type Step } from "./step.js";

export interface RunnerOptions {
  /** When the demo started, for the summary's total time. */
  started: number;
  /** The fleet's Redis, read after the steps; none for a single instance. */
  redisUrl: string | undefined;
  /** What the steps send besides their results, searched for in Redis too. */
  sentTexts: readonly string[];
  /** A signal arrived: its handler stops everything, so the runner only gets out of the way. */
  signalled(): boolean;
}

export async function runSteps(
  run: DemoRun,
  steps: readonly Step[],
  { started, redisUrl, sentTexts, signalled }: RunnerOptions,
): Promise<number> {
  const results: StepResult[] = [];
  const failures: Failure[] = [];
  for (const [index, step] of steps.entries()) {
    heading(`${index + 1}/${steps.length} ${step.name}: ${headingOf(step, run.interactive)}`);
    const stepStarted = performance.now();
    run.rounds.nextStep();
    try {
      const detail = await step.run(run);
      results.push({ name: step.name, ok: true, detail, ms: performance.now() - stepStarted });
    } catch (error) {
      if (signalled()) return 130;
      if (error instanceof Interrupted) {
        say();
        say(`demo: interrupted at ${step.name}; stopping both servers`);
        return 130;
      }
      const message = error instanceof DemoFailure ? error.message : stackOf(error);
      results.push({ name: step.name, ok: false, detail: message, ms: performance.now() - stepStarted });
      failures.push({ step: step.name, message });
      say(paint("red", `✗ ${step.name}: ${message}`));
      if (step.required) break;
    }
  }

  if (redisUrl !== undefined && failures.length === 0) {
    const failure = await checkAtRest(redisUrl, [...results.map((result) => result.detail), ...sentTexts]);
    if (failure) failures.push(failure);
  }

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const names = steps.map((step) => step.name);
  return summarize(names, results, failures, seconds) ? 0 : 1;
}

/** What a run leaves in the fleet's store, read as anyone with access to Redis would read it. */
async function checkAtRest(redisUrl: string, known: string[]): Promise<Failure | undefined> {
  const atRest = await redisAtRest(redisUrl, known);
  heading("at rest: what the fleet's shared Redis holds after every step");
  if (atRest.inClear.length > 0) {
    const message = `Redis holds ${atRest.inClear.length} of this run's results, arguments or answers in clear`;
    say(paint("red", `✗ ${message}`));
    return { step: "at rest", message };
  }
  note(
    `Redis holds ${atRest.keys} keys: ids, expiry times and sealed values; none of the ${atRest.searched} results, arguments and answers of this run in clear`,
  );
  return undefined;
}
