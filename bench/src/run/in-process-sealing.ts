import type { InProcessSealing } from "../report/sealing-cost.js";
import { measureInSlices, type SliceOptions } from "../sealing/slices.js";
import { sealingSubjects } from "../sealing/subjects.js";

const FULL: SliceOptions = { sliceMs: 200, slices: 9, warmupMs: 500 };
const QUICK: SliceOptions = { sliceMs: 100, slices: 5, warmupMs: 200 };

/**
 * The raw AEAD, the envelope and the whole policy, in this process, with the subjects and the slices
 * of `pnpm bench:sealing`: the yardstick the sealed server's extra CPU per flow is judged against.
 * Run while no server is up, so the servers and this do not compete for a core.
 */
export async function measureInProcessSealing(quick: boolean): Promise<InProcessSealing> {
  const { subjects } = sealingSubjects(["raw", "envelope", "full"]);
  const micros = await measureInSlices(subjects, quick ? QUICK : FULL);
  return { raw: micros.raw, envelope: micros.envelope, full: micros.full };
}
