import { randomBytes } from "node:crypto";
import { type Logger, silentLogger } from "@roundtrip/sdk/protocol";
import { AesGcmRequestStateCodec, type RequestStateCodec } from "@roundtrip/sealing";
import { expect } from "vitest";
import type { ApprovalLedger } from "../../src/approvals/approval-ledger.js";
import type { ApprovalRequest, ApprovalStore } from "../../src/approvals/approval-store.js";
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

/** A release asked for and confirmed by its requester, as the deploy tool's first two rounds leave it. */
export async function requested(
  store: ApprovalStore,
  release: string,
  details: ApprovalRequest,
): Promise<void> {
  await store.ask(release, details);
  expect(await store.request(release, details.principal)).toBe("requested");
}
