import type { WindowStats } from "../driver/load-result.js";
import type { RssSample } from "../proc/memory.js";
import { linearFit } from "../stats/regression.js";

export interface SoakVerdict {
  ok: boolean;
  errors: number;
  shed: number;
  /** RSS growth over the second half of the run, MiB per minute (least squares). */
  rssSlopeMiBPerMin: number;
  rssFitR2: number;
  reasons: string[];
}

/**
 * A soak passes when no flow failed, none was shed, and RSS does not keep growing once warm: the slope
 * over the second half must stay under the limit (the first half holds warm-up and heap growth).
 */
export function judgeSoak(
  windows: readonly WindowStats[],
  rss: readonly RssSample[],
  secondHalfFromS: number,
  maxSlopeMiBPerMin: number,
): SoakVerdict {
  const errors = windows.reduce((sum, w) => sum + w.errors, 0);
  const shed = windows.reduce((sum, w) => sum + w.shed, 0);
  const tail = rss.filter((sample) => sample.t >= secondHalfFromS).map((s) => ({ x: s.t / 60, y: s.rssMiB }));
  const fit = linearFit(tail);
  const reasons: string[] = [];
  if (errors > 0) reasons.push(`${errors} flow(s) failed`);
  if (shed > 0) reasons.push(`${shed} flow(s) shed: the server fell behind the fixed rate`);
  if (tail.length < 3) reasons.push("too few RSS samples in the second half to judge growth");
  if (fit.slope > maxSlopeMiBPerMin) {
    reasons.push(
      `RSS grows ${fit.slope.toFixed(2)} MiB/min over the second half (limit ${maxSlopeMiBPerMin}, r² ${fit.r2.toFixed(2)})`,
    );
  }
  return { ok: reasons.length === 0, errors, shed, rssSlopeMiBPerMin: fit.slope, rssFitR2: fit.r2, reasons };
}
