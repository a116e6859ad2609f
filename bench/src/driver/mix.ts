import { FLOWS, type Flow, type FlowKind } from "./flows.js";

/** Relative weights of the flow kinds in a run. */
export type FlowMix = Partial<Record<FlowKind, number>>;

/** What the soak sends: mostly asking flows, some single rounds and lists, and refusals. */
export const SOAK_MIX: FlowMix = { greet: 60, decline: 10, add: 20, list: 5, tampered: 5 };

/**
 * One flow that picks its kind by sequence number. The pick is a multiplicative hash rather than
 * random, so a run can be repeated exactly and every kind spreads evenly over time.
 */
export function mixedFlow(mix: FlowMix): Flow {
  const kinds = (Object.entries(mix) as [FlowKind, number][]).filter(([, weight]) => weight > 0);
  const total = kinds.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) throw new Error("the flow mix has no positive weight");
  return (client, seq) => {
    let pick = Math.imul(seq, 2654435761) >>> 0;
    pick %= total;
    for (const [kind, weight] of kinds) {
      if (pick < weight) return FLOWS[kind](client, seq);
      pick -= weight;
    }
    throw new Error("unreachable: the pick is below the total weight");
  };
}

/** Parses `greet=60,add=20`; unknown kinds are refused so a typo cannot silently skew a run. */
export function parseMix(text: string): FlowMix {
  const mix: FlowMix = {};
  for (const part of text.split(",")) {
    const [kind, weight] = part.split("=").map((s) => s.trim());
    if (!kind || !(kind in FLOWS)) throw new Error(`unknown flow kind "${kind}" in --mix`);
    const value = Number(weight);
    if (!Number.isFinite(value) || value < 0) throw new Error(`bad weight for ${kind} in --mix`);
    mix[kind as FlowKind] = value;
  }
  return mix;
}
