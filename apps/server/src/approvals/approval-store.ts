/** Who asked for a deployment: the token's client and the user (issuer + subject) it acts for. */
export interface Requester {
  clientId: string;
  issuer: string;
  subject: string;
}

/** Who signed in on the approval page. */
export interface Approver {
  issuer: string;
  subject: string;
}

/** `pending` until the requester approves; `deployed` once one deployment has consumed the approval. */
export type ApprovalState = "pending" | "approved" | "deployed";

export interface ApprovalRecord {
  release: string;
  service: string;
  env: string;
  requester: Requester;
  state: ApprovalState;
}

export interface ApprovalRequest {
  service: string;
  env: string;
  principal: Requester;
}

export type ApproveOutcome = "approved" | "unknown" | "not-requester";

/** `deployed`: this call consumed the approval; anything else: nothing may be deployed. */
export type ConsumeOutcome = "deployed" | "not-approved" | "already-deployed";

/**
 * Deploy approvals, bound to the user who asked. The deploy tool records one when it sends the
 * approval URL, the approval page records the outcome, and the tool consumes it on the round that
 * deploys: an `accept` of the URL elicitation only means the user agreed to open the page.
 *
 * Every instance of a fleet must see the same approvals, because the round after an approval may
 * reach any of them, and `consume` must be atomic there too: one approval deploys exactly once.
 */
export interface ApprovalStore {
  /** Throws ReleaseTakenError when another user already asked for this release. */
  request(release: string, details: ApprovalRequest): Promise<void>;
  /** Only the requester (same issuer and subject) may approve; anyone else is refused. */
  approve(release: string, approver: Approver): Promise<ApproveOutcome>;
  /** Atomically turns the requester's approved release into a deployed one. */
  consume(release: string, requester: Approver): Promise<ConsumeOutcome>;
  status(release: string): Promise<ApprovalRecord | undefined>;
}

export class ReleaseTakenError extends Error {
  override readonly name = "ReleaseTakenError";
  constructor(release: string) {
    super(`release ${release} was requested by another user; call deploy again for a new release`);
  }
}

export function sameUser(a: Approver, b: Approver): boolean {
  return a.issuer === b.issuer && a.subject === b.subject;
}

/** How long an approval is kept, from its request: long enough for a review, short enough to forget. */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;
