import type { Logger } from "@roundtrip/sdk/protocol";
import { InvalidRequestState, openValue, type RequestStateCodec, sealValue } from "@roundtrip/sealing";
import * as z from "zod";
import type { ApprovalLedger } from "./approval-ledger.js";
import {
  APPROVAL_TTL_MS,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalStore,
  type ApproveOutcome,
  type Approver,
  type ConsumeOutcome,
  ReleaseTakenError,
  sameUser,
} from "./approval-store.js";

export interface SealedApprovalStoreOptions {
  /** Where the sealed records live: this process, or the fleet's Redis. */
  ledger: ApprovalLedger;
  /** The request-state keys: every instance that shares them opens the records. */
  codec: RequestStateCodec;
  /** Where a record that does not open is reported, without its content. */
  logger: Logger;
  /** How long an approval is kept from its request (default one hour). */
  ttlMs?: number;
}

/** What a release's record says; the release itself is the key it is sealed for. */
const Sealed = z.object({
  service: z.string(),
  env: z.string(),
  requester: z.object({ clientId: z.string(), issuer: z.string(), subject: z.string() }),
  state: z.enum(["pending", "approved", "deployed"]),
});
type Sealed = z.output<typeof Sealed>;

/** What a step decides on the record it read: its outcome, and the state to move to, if any. */
type Step<O> = (record: Sealed) => { outcome: O; next?: ApprovalState };

/** States only move forward (pending, approved, deployed), so a record changes at most twice under us. */
const MAX_ATTEMPTS = 3;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Approvals whose records are sealed with the request-state keys and bound to their release before
 * they reach the ledger: what the user asked to deploy, where, and who they are never sit in the store
 * in clear, and a record copied to another release does not open there. A record that does not open
 * counts as absent (the release is unknown, not approved, or taken) and is logged without its content.
 */
export class SealedApprovalStore implements ApprovalStore {
  readonly #ledger: ApprovalLedger;
  readonly #codec: RequestStateCodec;
  readonly #logger: Logger;
  readonly #ttlMs: number;

  constructor(options: SealedApprovalStoreOptions) {
    this.#ledger = options.ledger;
    this.#codec = options.codec;
    this.#logger = options.logger;
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
  }

  async request(release: string, details: ApprovalRequest): Promise<void> {
    const { service, env, principal } = details;
    const { clientId, issuer, subject } = principal;
    const record: Sealed = { service, env, requester: { clientId, issuer, subject }, state: "pending" };
    const existing = await this.#ledger.add(release, this.#seal(release, record), this.#ttlMs);
    if (existing === undefined) return;
    // A re-ask for the same release keeps its outcome; a release never changes hands.
    const current = this.#open(release, existing);
    if (current && sameUser(current.requester, principal)) return;
    throw new ReleaseTakenError(release);
  }

  approve(release: string, approver: Approver): Promise<ApproveOutcome> {
    return this.#step(release, "unknown", (record) => {
      if (!sameUser(record.requester, approver)) return { outcome: "not-requester" };
      return record.state === "pending" ? { outcome: "approved", next: "approved" } : { outcome: "approved" };
    });
  }

  consume(release: string, requester: Approver): Promise<ConsumeOutcome> {
    return this.#step(release, "not-approved", (record) => {
      if (!sameUser(record.requester, requester)) return { outcome: "not-approved" };
      if (record.state === "deployed") return { outcome: "already-deployed" };
      if (record.state !== "approved") return { outcome: "not-approved" };
      return { outcome: "deployed", next: "deployed" };
    });
  }

  async status(release: string): Promise<ApprovalRecord | undefined> {
    const sealed = await this.#ledger.get(release);
    const record = sealed === undefined ? undefined : this.#open(release, sealed);
    return record && { release, ...record };
  }

  /** Reads the record, decides, and writes the new state only if nobody changed the record meanwhile. */
  async #step<O>(release: string, absent: O, step: Step<O>): Promise<O> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const sealed = await this.#ledger.get(release);
      const record = sealed === undefined ? undefined : this.#open(release, sealed);
      if (sealed === undefined || record === undefined) return absent;
      const { outcome, next } = step(record);
      if (next === undefined) return outcome;
      if (await this.#ledger.swap(release, sealed, this.#seal(release, { ...record, state: next }))) {
        return outcome;
      }
    }
    throw new Error(`the approval of release ${release} kept changing while it was updated; try again`);
  }

  #seal(release: string, record: Sealed): string {
    return sealValue(this.#codec, encoder.encode(JSON.stringify(record)), approvalContext(release));
  }

  #open(release: string, sealed: string): Sealed | undefined {
    try {
      const parsed = Sealed.safeParse(
        JSON.parse(decoder.decode(openValue(this.#codec, sealed, approvalContext(release)))),
      );
      if (parsed.success) return parsed.data;
      this.#refuse(release, "not an approval record");
    } catch (error) {
      this.#refuse(release, error instanceof InvalidRequestState ? error.reason : "not an approval record");
    }
    return undefined;
  }

  #refuse(release: string, reason: string): void {
    this.#logger.warn({ release, reason }, "a stored approval did not open; it counts as absent");
  }
}

/** What a release's record is sealed for: that release only. */
function approvalContext(release: string): string {
  return `roundtrip/approval/${release}`;
}
