/** Who asked for a deployment: the token's client and the user (issuer + subject) it acts for. */
export interface Requester {
  clientId: string;
  issuer: string;
  subject: string;
  /** The user's display name, when their token carries one: shown on the page, never matched on. */
  name?: string;
}

/** Who signed in on the approval page. */
export interface Approver {
  issuer: string;
  subject: string;
  /** The display name the sign-in's token carried, if any: shown, never matched on. */
  name?: string;
}

/**
 * `asked` until the requester confirms in their client, `pending` until they approve or reject it on
 * the page, `deployed` once the release's one deployment is claimed. `approved` and `rejected` are
 * final answers: neither turns into the other.
 */
export type ApprovalState = "asked" | "pending" | "approved" | "rejected" | "deployed";

/** Why and by whom a release was turned down; the reason is the approver's own words. */
export interface Rejection {
  by: Approver;
  /** ISO 8601. */
  at: string;
  reason: string;
}

/** The longest rejection reason kept: a sentence, not an essay. */
export const MAX_REJECTION_REASON = 200;

/** How a user is named to people: their display name, else their subject. */
export function displayName(user: Approver): string {
  return user.name ?? user.subject;
}

export interface ApprovalRecord {
  release: string;
  service: string;
  env: string;
  requester: Requester;
  state: ApprovalState;
  /** When the release was asked for (ISO 8601); records of earlier versions lack it. */
  requestedAt?: string;
  /** Set whenever `state` is `rejected`. */
  rejection?: Rejection;
  /** When the release's one deployment was claimed (ISO 8601); set whenever `state` is `deployed`. */
  deployedAt?: string;
}

export interface ApprovalRequest {
  service: string;
  env: string;
  principal: Requester;
}

/**
 * `unknown`: the store has no record of the release, neither its approval nor its deployment (never
 * asked for, expired, or lost by the store); `already-deployed`: approving again deploys nothing.
 */
export type ApproveOutcome =
  | "approved"
  | "already-deployed"
  | "already-rejected"
  | "unconfirmed"
  | "unknown"
  | "not-requester";

/** As ApproveOutcome; `already-approved`: an approval stands and cannot be taken back here. */
export type RejectOutcome =
  | "rejected"
  | "already-approved"
  | "already-deployed"
  | "unconfirmed"
  | "unknown"
  | "not-requester";

/**
 * `deployed`: this call claimed the release's one deployment; anything else: nothing may be deployed.
 * `lost`: neither the approval nor a deployment is on record, though the caller requested one: the
 * store forgot it (restarted empty, evicted) or it expired, and it must never be re-created silently.
 */
export type ConsumeOutcome = "deployed" | "not-approved" | "rejected" | "already-deployed" | "lost";

/**
 * What `request` found: `requested` (now, or before), the release's deployment, or no record at all
 * (`lost`, as in ConsumeOutcome): a request never creates the record, `ask` did when the release was new.
 */
export type RequestOutcome = "requested" | "already-deployed" | "rejected" | "lost";

/**
 * Deploy approvals, bound to the user who asked. The deploy tool records one when it mints the
 * release, marks it requested when the user confirms, the approval page records the outcome, and the
 * tool consumes it on the round that deploys: an `accept` of the URL elicitation only means the user
 * agreed to open the page.
 *
 * Every instance of a fleet must see the same approvals, because the round after an approval may
 * reach any of them, and `consume` must be atomic there too: one release deploys exactly once.
 */
export interface ApprovalStore {
  /**
   * Records a new release, awaiting its requester's confirmation; the only call that creates a record,
   * made when the release id is minted, so no later round can re-create one the store forgot. Throws
   * ReleaseTakenError when another user already asked for this release.
   */
  ask(release: string, details: ApprovalRequest): Promise<void>;
  /**
   * The requester confirmed: the release awaits approval on the page. Throws ReleaseTakenError for
   * anyone else; a release already deployed is never requested again.
   */
  request(release: string, requester: Approver): Promise<RequestOutcome>;
  /** Only the requester (same issuer and subject) may approve; anyone else is refused. */
  approve(release: string, approver: Approver): Promise<ApproveOutcome>;
  /**
   * Only the requester may reject, with a reason (trimmed, 1 to MAX_REJECTION_REASON characters, else
   * a RangeError and nothing changes); a rejected release is never approved or deployed.
   */
  reject(release: string, approver: Approver, reason: string): Promise<RejectOutcome>;
  /**
   * Claims the requester's approved release's one deployment: a record keyed by the release, set only
   * if absent, before the caller deploys. A second claim, from any instance, finds it and deploys nothing.
   */
  consume(release: string, requester: Approver): Promise<ConsumeOutcome>;
  /** The approval, or what its deployment record says once the approval itself has gone. */
  status(release: string): Promise<ApprovalRecord | undefined>;
}

export class ReleaseTakenError extends Error {
  override readonly name = "ReleaseTakenError";
  constructor(release: string) {
    super(`release ${release} was requested by another user; call deploy again for a new release`);
  }
}

/** A rejection reason as kept, or a RangeError saying what a valid one is. */
export function rejectionReason(reason: string): string {
  const trimmed = reason.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_REJECTION_REASON) {
    throw new RangeError(`a rejection needs a reason of 1 to ${MAX_REJECTION_REASON} characters`);
  }
  // Line breaks and other control characters would let a reason forge lines in a client's output.
  if (/\p{Cc}/u.test(trimmed)) throw new RangeError("a rejection reason is one line of text");
  return trimmed;
}

export function sameUser(a: Approver, b: Approver): boolean {
  return a.issuer === b.issuer && a.subject === b.subject;
}

/** How long an approval is kept, from its request: long enough for a review, short enough to forget. */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;

/**
 * How long a release's deployment record is kept: far longer than its approval and any round that can
 * name the release, so a replay or a second approval is answered with the deployment, never run again.
 */
export const DEPLOYMENT_TTL_MS = 30 * 24 * 60 * 60 * 1000;
