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

/** One process's approvals, forgotten after `ttlMs` (default one hour); a fleet needs a shared store. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #records = new Map<string, { record: ApprovalRecord; expiresAt: number }>();
  readonly #ttlMs: number;

  constructor(options: { ttlMs?: number } = {}) {
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
  }

  async request(release: string, details: ApprovalRequest): Promise<void> {
    this.#prune();
    const existing = this.#live(release);
    // A re-ask for the same release keeps its outcome; a release never changes hands.
    if (existing && sameUser(existing.requester, details.principal)) return;
    if (existing) throw new ReleaseTakenError(release);
    this.#records.set(release, {
      record: {
        release,
        service: details.service,
        env: details.env,
        requester: { ...details.principal },
        state: "pending",
      },
      expiresAt: Date.now() + this.#ttlMs,
    });
  }

  async approve(release: string, approver: Approver): Promise<ApproveOutcome> {
    const record = this.#live(release);
    if (!record) return "unknown";
    if (!sameUser(record.requester, approver)) return "not-requester";
    if (record.state === "pending") record.state = "approved";
    return "approved";
  }

  async consume(release: string, requester: Approver): Promise<ConsumeOutcome> {
    const record = this.#live(release);
    if (!record || !sameUser(record.requester, requester)) return "not-approved";
    if (record.state === "deployed") return "already-deployed";
    if (record.state !== "approved") return "not-approved";
    record.state = "deployed";
    return "deployed";
  }

  async status(release: string): Promise<ApprovalRecord | undefined> {
    const record = this.#live(release);
    return record ? { ...record, requester: { ...record.requester } } : undefined;
  }

  #live(release: string): ApprovalRecord | undefined {
    const entry = this.#records.get(release);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#records.delete(release);
      return undefined;
    }
    return entry.record;
  }

  #prune(): void {
    const now = Date.now();
    for (const [release, entry] of this.#records) if (entry.expiresAt <= now) this.#records.delete(release);
  }
}
