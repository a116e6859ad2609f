import { createHash } from "node:crypto";
import { isRecord } from "../../../protocol/is-record.js";
import type { InputRequest } from "../../../protocol/schemas/input-required.js";

/**
 * The resolver layer's format: the plaintext the resolver engine keeps in `requestState` between
 * rounds, the answers so far, each pinned to a digest of the question it answers, and the digests of
 * the questions asked in the last round. Where this layer sits among the others:
 * request-state-layers.ts.
 */

export const RESOLVER_STATE_VERSION = 3;

export interface RecordedOutcome {
  action: "accept" | "decline" | "cancel";
  /** The answer as the client sent it: form content, a sampling result or a roots list; null otherwise. */
  data: unknown;
  /** Digest of the question this answers. */
  q: string;
}

export interface ResolverState {
  outcomes: Record<string, RecordedOutcome>;
  asked: Record<string, string>;
}

export function emptyResolverState(): ResolverState {
  return { outcomes: {}, asked: {} };
}

function readOutcome(value: unknown): RecordedOutcome | undefined {
  if (!isRecord(value) || typeof value.q !== "string") return undefined;
  const { action } = value;
  if (action !== "accept" && action !== "decline" && action !== "cancel") return undefined;
  return { action, data: value.data ?? null, q: value.q };
}

/**
 * Reads the state; anything unreadable (another format, another version, a hand-built string) is
 * "no progress yet", never an error, so a rolling upgrade restarts flows instead of failing them.
 */
export function decodeResolverState(plaintext: string | undefined): ResolverState {
  const state = emptyResolverState();
  if (plaintext === undefined) return state;
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext);
  } catch {
    return state;
  }
  if (!isRecord(parsed) || parsed.v !== RESOLVER_STATE_VERSION) return state;
  if (isRecord(parsed.outcomes)) {
    for (const [key, value] of Object.entries(parsed.outcomes)) {
      const outcome = readOutcome(value);
      if (outcome) state.outcomes[key] = outcome;
    }
  }
  if (isRecord(parsed.asked)) {
    for (const [key, value] of Object.entries(parsed.asked)) {
      if (typeof value === "string") state.asked[key] = value;
    }
  }
  return state;
}

export function encodeResolverState(state: ResolverState): string {
  return JSON.stringify({ v: RESOLVER_STATE_VERSION, outcomes: state.outcomes, asked: state.asked });
}

/**
 * Identifies a question by exactly what the user was shown: the request's params (message and
 * schema, or the sampling params). 16 bytes of SHA-256, base64url without padding (22 characters).
 */
export function questionDigest(request: InputRequest): string {
  const params = "params" in request && request.params !== undefined ? request.params : null;
  return createHash("sha256").update(JSON.stringify(params)).digest().subarray(0, 16).toString("base64url");
}
