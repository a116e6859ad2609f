import type { PostClient } from "./http-client.js";

/** A flow that did not end as the contract says: the target is broken, not slow. */
export class FlowError extends Error {
  override readonly name = "FlowError";
}

/** Runs one whole flow and returns the latency of each of its rounds, in milliseconds. */
export type Flow = (client: PostClient, seq: number) => Promise<number[]>;
