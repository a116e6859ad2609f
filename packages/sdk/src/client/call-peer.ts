import type { CallCache } from "./cache/call-cache.js";
import type { CallOptions } from "./call-options.js";

/** What every kind of call needs from the Client that makes it. */
export interface CallPeer {
  /** The call's bound: its own signal and timeoutMs, or the client's. */
  callSignal(options: CallOptions): AbortSignal | undefined;
  /** Connects first, unless connected. */
  ready(signal: AbortSignal | undefined): Promise<void>;
  send(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** A result as callers of either era read it. */
  eraResult(method: string, raw: Record<string, unknown>): Record<string, unknown>;
  readonly cache: CallCache;
}
