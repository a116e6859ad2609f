import { setTimeout as sleep } from "node:timers/promises";
import type { InputContext } from "@roundtrip/sdk/server";

const STEPS = 3;

/**
 * The example's stand-in for rolling a deployed release out: `durationMs` in steps, each reported as
 * progress (in a task, its statusMessage). Aborted with the call, or with the task when it is cancelled.
 */
export async function rollOut(release: string, durationMs: number, ctx: InputContext): Promise<void> {
  for (let step = 1; step <= STEPS; step++) {
    await ctx.sendProgress(step - 1, STEPS, `rolling out ${release}: step ${step} of ${STEPS}`);
    if (durationMs > 0) await sleep(durationMs / STEPS, undefined, { signal: ctx.signal });
  }
}
