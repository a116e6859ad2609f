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

export interface ApprovalRecord {
  release: string;
  service: string;
  env: string;
  requester: Requester;
  state: "pending" | "approved";
}

export type ApproveOutcome = "approved" | "unknown" | "not-requester";

/**
 * Pending deploy approvals, bound to the user who asked. The deploy tool records one when it sends
 * the approval URL, the approval page records the outcome, and the tool reads it on the next round:
 * an `accept` of the URL elicitation only means the user agreed to open the page.
 *
 * Asynchronous so a shared store (a database, Redis) can stand in: every instance of a fleet must see
 * the same approvals, because the round after the approval may reach any of them.
 */
export interface ApprovalStore {
  request(release: string, details: { service: string; env: string; principal: Requester }): Promise<void>;
  /** Only the requester (same issuer and subject) may approve; anyone else is refused. */
  approve(release: string, approver: Approver): Promise<ApproveOutcome>;
  status(release: string): Promise<ApprovalRecord | undefined>;
}

export function sameUser(a: Approver, b: Approver): boolean {
  return a.issuer === b.issuer && a.subject === b.subject;
}

/** One process's approvals, forgotten after `ttlMs` (default one hour); a fleet needs a shared store. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #records = new Map<string, { record: ApprovalRecord; expiresAt: number }>();
  readonly #ttlMs: number;

  constructor(options: { ttlMs?: number } = {}) {
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  }

  async request(
    release: string,
    details: { service: string; env: string; principal: Requester },
  ): Promise<void> {
    this.#prune();
    const existing = this.#live(release);
    // A re-ask for the same release keeps its outcome; a release never changes hands.
    if (existing && sameUser(existing.requester, details.principal)) return;
    if (existing) throw new Error(`release ${release} was requested by another user`);
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
    record.state = "approved";
    return "approved";
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
