import * as z from "zod";
import { RELEASE_ID } from "../../approvals/release-id.js";

/**
 * What the deploy tool carries between rounds in its own requestState: which step the next answer is
 * for, and which release. The SDK seals it and binds it to the caller and the arguments, but does not
 * match answers to questions in hand-built state, so the step names the question being answered.
 */
const DeployState = z.object({
  step: z.enum(["confirm", "approve", "wait"]),
  release: z.string().regex(RELEASE_ID),
  /** State-only rounds spent waiting for the approval page since the URL was last asked. */
  waits: z.number().int().min(0).optional(),
});
export type DeployState = z.output<typeof DeployState>;

export function writeDeployState(state: DeployState): string {
  return JSON.stringify(state);
}

/** Undefined on the first round. Sealed state cannot be forged, so a bad one is this code's own bug. */
export function readDeployState(raw: string | undefined): DeployState | undefined {
  if (raw === undefined) return undefined;
  const parsed = DeployState.safeParse(JSON.parse(raw));
  if (!parsed.success)
    throw new Error("deploy state written by another version of this tool; call deploy again");
  return parsed.data;
}
