import type { CarrierCall, Client, RoundsOutcome } from "@roundtrip/sdk/client";
import { ErrorCode, McpError } from "@roundtrip/sdk/protocol";
import type { PendingFlow, PendingStore } from "../pending-store.js";

/** The server could not open a requestState: expired, altered, or sealed under a key it no longer holds. */
export function isRefusedRequestState(error: unknown): boolean {
  if (!(error instanceof McpError) || error.code !== ErrorCode.InvalidParams) return false;
  return (error.data as { reason?: unknown } | undefined)?.reason === "invalid_request_state";
}

/**
 * Asks the server whether it can still open a saved flow's requestState before anyone answers its
 * questions: the saved call with that state and no answers, stopped at its first round. Asking again
 * is what a state-only round is for, so it changes nothing on the server. Resolves to "refused" when
 * the server cannot open the state; otherwise to what the server answered, which the caller uses: a
 * result, when the server no longer needs the answers, must not be asked for a second time.
 */
async function probeSavedState(
  client: Client,
  call: CarrierCall,
  requestState: string,
): Promise<RoundsOutcome | "refused"> {
  try {
    return await client.runRounds(call, { requestState, onRound: () => ({ kind: "stop" }) });
  } catch (error) {
    if (isRefusedRequestState(error)) return "refused";
    throw error;
  }
}

export type SavedFlowCheck =
  | { kind: "refused" }
  | { kind: "complete"; result: Record<string, unknown> }
  /** The flow with the server's latest round in place of the saved one, saved so. */
  | { kind: "open"; flow: PendingFlow };

/**
 * Checks a saved flow with its server (see probeSavedState) and keeps the store in step: a completed
 * flow is deleted, an open one is saved with the server's latest round, as after any round sent. A flow
 * saved without requestState has nothing to refuse and is not asked about.
 */
export async function checkSavedFlow(
  client: Client,
  call: CarrierCall,
  flow: PendingFlow,
  store: PendingStore,
): Promise<SavedFlowCheck> {
  if (flow.requestState === undefined) return { kind: "open", flow };
  const probed = await probeSavedState(client, call, flow.requestState);
  if (probed === "refused") return { kind: "refused" };
  if (probed.kind === "complete") {
    await store.delete(flow.id);
    return { kind: "complete", result: probed.result };
  }
  const { requestState, inputRequests } = probed.saved.result;
  const latest = {
    ...flow,
    inputRequests: inputRequests ?? {},
    ...(requestState === undefined ? {} : { requestState }),
  };
  await store.save(latest);
  return { kind: "open", flow: latest };
}
