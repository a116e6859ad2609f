import type { ClientTransport } from "../transport/client-transport.js";

/** A request attempt that failed, as the recoveries read it. */
export interface FailedAttempt {
  readonly error: unknown;
  readonly method: string;
  /** The 2025-era session it went out on: one reopening serves every request that met the same one. */
  readonly generation: number;
  /** Whether it went out in the modern era on prior knowledge alone, before any answer confirmed it. */
  readonly unconfirmed: boolean;
  readonly sentParamHeaders: boolean;
  readonly signal: AbortSignal | undefined;
}

/** The negotiation, as far as a request may ask it to change its mind. */
export interface Renegotiation {
  readonly generation: number;
  reconsider(): Promise<boolean>;
  reopen(generation: number): Promise<void>;
  switchVersion(errorData: unknown): void;
}

/** What recoveries act on. */
export interface RecoveryContext {
  readonly negotiation: Renegotiation;
  readonly transport: ClientTransport;
  /** Lists tools again, so that their Mcp-Param-* annotations are current. */
  relistTools(signal: AbortSignal | undefined): Promise<unknown>;
}

/**
 * Fixes what is known to be broken before an attempt fails; undefined when nothing needs fixing, so
 * that the request goes out in the same tick (an abort right after a call finds it sent).
 */
export type BeforeSend = (
  context: RecoveryContext,
  signal: AbortSignal | undefined,
) => Promise<void> | undefined;

/** One way a failed request is fixed and sent again. */
export interface Recovery {
  /** Recoveries of one kind share one chance per request: the server may have acted on the first attempt. */
  readonly kind: string;
  applies(failed: FailedAttempt): boolean;
  /** Fixes what the failure needs; false when the request must fail after all. */
  recover(failed: FailedAttempt, context: RecoveryContext): Promise<boolean>;
}

/** Whether the request may go again: the first recovery that applies, unless its kind already ran for it. */
export async function recoverOnce(
  recoveries: readonly Recovery[],
  failed: FailedAttempt,
  context: RecoveryContext,
  used: Set<string>,
): Promise<boolean> {
  for (const recovery of recoveries) {
    if (used.has(recovery.kind) || !recovery.applies(failed)) continue;
    used.add(recovery.kind);
    return recovery.recover(failed, context);
  }
  return false;
}
