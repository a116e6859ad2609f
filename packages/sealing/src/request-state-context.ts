import type { RequestIdentity } from "./principal.js";

/** The request a token is minted for or echoed on. */
export interface RequestStateRequest {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  readonly method: string;
  /** The tool or prompt name, or the exact resource URI. */
  readonly target: string;
  /** The raw wire arguments (tools and prompts). Ignored for resources/read. Missing or null = `{}`. */
  readonly arguments?: unknown;
}

/** What the server boundary knows about the current request besides its params. */
export interface RequestStateContext {
  /** The authenticated caller, if any; fed to `bindPrincipal`. */
  readonly identity?: RequestIdentity | null;
  /** The audience to use when the policy sets none: normally the server name. */
  readonly audience?: string | null;
  /** Current time in unix seconds (fractional); defaults to the system clock. */
  readonly now?: number;
  /**
   * Sealing only: a short string the server wants back on the next round (at most
   * TRAIL_MAX_LENGTH characters), such as a trace link. Never checked on open; not for secrets.
   */
  readonly trail?: string;
}

/** How long a trail may be: it rides in every token of the flow. */
export const TRAIL_MAX_LENGTH = 256;

/** An opened token: the handler's state and the trail it was sealed with, if any. */
export interface OpenedRequestState {
  readonly state: string;
  readonly trail: string | undefined;
}

/**
 * Derives the principal a token is bound to, or null for none. It runs on every seal and open, so a
 * throw or a non-string result fails the request instead of silently weakening the binding.
 */
export type BindPrincipal = (
  identity: RequestIdentity | undefined,
  context: RequestStateContext,
) => string | null;
