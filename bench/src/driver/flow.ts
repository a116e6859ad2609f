import type { PostClient } from "./http-client.js";

/** A flow that did not end as the contract says: the target is broken, not slow. */
export class FlowError extends Error {
  override readonly name = "FlowError";
}

/**
 * The latencies of a flow that polls: every round, and among them the polls (a task's tasks/get),
 * whose latency the report gives apart from the rounds'.
 */
export interface PolledTimes {
  rounds: number[];
  polls: number[];
}

/** Runs one whole flow and returns the latency of each of its rounds, in milliseconds. */
export type Flow = (client: PostClient, seq: number) => Promise<number[] | PolledTimes>;

/** Both readings of what a flow returned: a flow without polls has none. */
export function splitTimes(times: number[] | PolledTimes): PolledTimes {
  return Array.isArray(times) ? { rounds: times, polls: [] } : times;
}
