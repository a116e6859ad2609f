import { randomBytes } from "node:crypto";
import { type Logger, silentLogger } from "@roundtrip/sdk/protocol";
import { AesGcmRequestStateCodec, type RequestStateCodec } from "@roundtrip/sealing";
import type { ApprovalLedger } from "../../src/approvals/approval-ledger.js";
import { SealedApprovalStore } from "../../src/approvals/sealed-approval-store.js";

/** The keys of one test deployment: every store built with them opens the others' records. */
export const approvalCodec: RequestStateCodec = new AesGcmRequestStateCodec([randomBytes(32)]);

/** Approvals over `ledger`, sealed as the server seals them. */
export function approvalStore(
  ledger: ApprovalLedger,
  options: { codec?: RequestStateCodec; logger?: Logger; ttlMs?: number } = {},
): SealedApprovalStore {
  return new SealedApprovalStore({
    ledger,
    codec: options.codec ?? approvalCodec,
    logger: options.logger ?? silentLogger,
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
  });
}
