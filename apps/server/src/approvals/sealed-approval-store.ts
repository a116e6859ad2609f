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
  DEPLOYMENT_TTL_MS,
  type RejectOutcome,
  ReleaseTakenError,
  type RequestOutcome,
  rejectionReason,
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
  /** The current time in milliseconds, written into deployment records (default `Date.now`). */
  now?: () => number;
}

const User = { issuer: z.string(), subject: z.string(), name: z.string().optional() };
const Requester = z.object({ clientId: z.string(), ...User });

/** What a release's record says; the release itself is the key it is sealed for. */
const Sealed = z.object({
  service: z.string(),
  env: z.string(),
  requester: Requester,
  state: z.enum(["asked", "pending", "approved", "rejected", "deployed"]),
  requestedAt: z.string().optional(),
  rejection: z.object({ by: z.object(User), at: z.string(), reason: z.string() }).optional(),
});
type Sealed = z.output<typeof Sealed>;

/** A release's one deployment: claimed before it runs, kept far longer than the approval. */
const Deployment = z.object({
  service: z.string(),
  env: z.string(),
  requester: Requester,
  at: z.string(),
  requestedAt: z.string().optional(),
});
type Deployment = z.output<typeof Deployment>;

/** What a step decides on the record it read: its outcome, and the state to move to, if any. */
type Step<O> = (record: Sealed) => { outcome: O; next?: ApprovalState; rejection?: Sealed["rejection"] };

/**
 * States only move forward (asked, pending, then approved and deployed, or rejected): a record changes
 * at most three times under us.
 */
const MAX_ATTEMPTS = 4;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Approvals whose records are sealed with the request-state keys and bound to their release before
 * they reach the ledger: what the user asked to deploy, where, and who they are never sit in the store
 * in clear, and a record copied to another release does not open there. A record that does not open
 * counts as absent (the release is unknown, not approved, or taken) and is logged without its content.
 *
 * Next to each approval, under `<release>/deployment`, sits the release's deployment record, set only if
 * absent before anything is deployed: a repeated approval or a replayed round finds it, deploys nothing,
 * and is told when the deployment happened, even after the approval itself has expired.
 */
export class SealedApprovalStore implements ApprovalStore {
  readonly #ledger: ApprovalLedger;
  readonly #codec: RequestStateCodec;
  readonly #logger: Logger;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: SealedApprovalStoreOptions) {
    this.#ledger = options.ledger;
    this.#codec = options.codec;
    this.#logger = options.logger;
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  async ask(release: string, details: ApprovalRequest): Promise<void> {
    const { service, env, principal } = details;
    const { clientId, issuer, subject, name } = principal;
    const record: Sealed = {
      service,
      env,
      requester: { clientId, issuer, subject, ...(name === undefined ? {} : { name }) },
      state: "asked",
      requestedAt: new Date(this.#now()).toISOString(),
    };
    const existing = await this.#ledger.add(release, this.#seal(release, record), this.#ttlMs);
    if (existing === undefined) return;
    // A re-ask for the same release keeps its outcome; a release never changes hands.
    const current = this.#open(release, existing);
    if (current && sameUser(current.requester, principal)) return;
    throw new ReleaseTakenError(release);
  }

  async request(release: string, requester: Approver): Promise<RequestOutcome> {
    const outcome = await this.#step<RequestOutcome | "taken">(release, "lost", (record) => {
      if (!sameUser(record.requester, requester)) return { outcome: "taken" };
      if (record.state === "deployed") return { outcome: "already-deployed" };
      if (record.state === "rejected") return { outcome: "rejected" };
      return record.state === "asked" ? { outcome: "requested", next: "pending" } : { outcome: "requested" };
    });
    if (outcome === "taken") throw new ReleaseTakenError(release);
    if (outcome === "rejected") return outcome;
    const deployment = outcome === "requested" ? undefined : await this.#deployment(release);
    if (!deployment) return outcome;
    if (sameUser(deployment.requester, requester)) return "already-deployed";
    throw new ReleaseTakenError(release);
  }

  async approve(release: string, approver: Approver): Promise<ApproveOutcome> {
    const outcome = await this.#step<ApproveOutcome>(release, "unknown", (record) => {
      if (!sameUser(record.requester, approver)) return { outcome: "not-requester" };
      if (record.state === "asked") return { outcome: "unconfirmed" };
      if (record.state === "rejected") return { outcome: "already-rejected" };
      return record.state === "pending" ? { outcome: "approved", next: "approved" } : { outcome: "approved" };
    });
    if (outcome === "not-requester" || outcome === "already-rejected") return outcome;
    // Checked even when the approval has gone: what happened to the release outlives it.
    const deployment = await this.#deployment(release);
    if (!deployment) return outcome;
    return sameUser(deployment.requester, approver) ? "already-deployed" : "not-requester";
  }

  async reject(release: string, approver: Approver, reason: string): Promise<RejectOutcome> {
    const kept = rejectionReason(reason);
    const { issuer, subject, name } = approver;
    const by = { issuer, subject, ...(name === undefined ? {} : { name }) };
    const outcome = await this.#step<RejectOutcome>(release, "unknown", (record) => {
      if (!sameUser(record.requester, approver)) return { outcome: "not-requester" };
      if (record.state === "asked") return { outcome: "unconfirmed" };
      if (record.state === "approved") return { outcome: "already-approved" };
      if (record.state === "deployed") return { outcome: "already-deployed" };
      if (record.state === "rejected") return { outcome: "rejected" };
      const at = new Date(this.#now()).toISOString();
      return { outcome: "rejected", next: "rejected", rejection: { by, at, reason: kept } };
    });
    if (outcome !== "unknown" && outcome !== "rejected") return outcome;
    // The approval may have gone while its deployment record stays: that release was deployed.
    const deployment = await this.#deployment(release);
    if (!deployment) return outcome;
    return sameUser(deployment.requester, approver) ? "already-deployed" : "not-requester";
  }

  async consume(release: string, requester: Approver): Promise<ConsumeOutcome> {
    const record = await this.#read(release);
    if (record === undefined) {
      const deployment = await this.#deployment(release);
      if (!deployment) return "lost";
      return sameUser(deployment.requester, requester) ? "already-deployed" : "not-approved";
    }
    if (!sameUser(record.requester, requester)) return "not-approved";
    if (record.state === "asked" || record.state === "pending") return "not-approved";
    if (record.state === "rejected") return "rejected";
    // Records of earlier versions have no deployment record; their state alone says it happened.
    if (record.state === "deployed") return "already-deployed";
    const { service, env, requestedAt } = record;
    const claim: Deployment = {
      service,
      env,
      requester: record.requester,
      at: new Date(this.#now()).toISOString(),
      ...(requestedAt === undefined ? {} : { requestedAt }),
    };
    const key = deploymentKey(release);
    const taken = await this.#ledger.add(key, this.#sealDeployment(release, claim), DEPLOYMENT_TTL_MS);
    // Another claim, even one that no longer opens, means the release was deployed: fail closed.
    if (taken !== undefined) return "already-deployed";
    await this.#followClaim(release);
    return "deployed";
  }

  async status(release: string): Promise<ApprovalRecord | undefined> {
    const [record, deployment] = await Promise.all([this.#read(release), this.#deployment(release)]);
    if (deployment) {
      const { service, env, requester, at, requestedAt } = deployment;
      return {
        release,
        service,
        env,
        requester,
        state: "deployed",
        deployedAt: at,
        ...(requestedAt === undefined ? {} : { requestedAt }),
      };
    }
    return record && { release, ...record };
  }

  /**
   * Marks the approval deployed, for the page: the claim is what keeps the deployment to one, so once it
   * is made, a store fault here is logged and the deployment goes ahead rather than being lost.
   */
  async #followClaim(release: string): Promise<void> {
    try {
      await this.#step<undefined>(release, undefined, (record) =>
        record.state === "approved" ? { outcome: undefined, next: "deployed" } : { outcome: undefined },
      );
    } catch (error) {
      const reason = error instanceof Error ? error.name : "unknown";
      this.#logger.warn({ release, reason }, "a claimed deployment's approval could not be marked deployed");
    }
  }

  async #read(release: string): Promise<Sealed | undefined> {
    const sealed = await this.#ledger.get(release);
    return sealed === undefined ? undefined : this.#open(release, sealed);
  }

  async #deployment(release: string): Promise<Deployment | undefined> {
    const sealed = await this.#ledger.get(deploymentKey(release));
    if (sealed === undefined) return undefined;
    return this.#openAs(Deployment, release, sealed, deploymentContext(release));
  }

  /** Reads the record, decides, and writes the new state only if nobody changed the record meanwhile. */
  async #step<O>(release: string, absent: O, step: Step<O>): Promise<O> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const sealed = await this.#ledger.get(release);
      const record = sealed === undefined ? undefined : this.#open(release, sealed);
      if (sealed === undefined || record === undefined) return absent;
      const { outcome, next, rejection } = step(record);
      if (next === undefined) return outcome;
      const updated: Sealed = { ...record, state: next, ...(rejection === undefined ? {} : { rejection }) };
      if (await this.#ledger.swap(release, sealed, this.#seal(release, updated))) {
        return outcome;
      }
    }
    throw new Error(`the approval of release ${release} kept changing while it was updated; try again`);
  }

  #seal(release: string, record: Sealed): string {
    return sealValue(this.#codec, encoder.encode(JSON.stringify(record)), approvalContext(release));
  }

  #sealDeployment(release: string, record: Deployment): string {
    return sealValue(this.#codec, encoder.encode(JSON.stringify(record)), deploymentContext(release));
  }

  #open(release: string, sealed: string): Sealed | undefined {
    return this.#openAs(Sealed, release, sealed, approvalContext(release));
  }

  #openAs<T>(schema: z.ZodType<T>, release: string, sealed: string, context: string): T | undefined {
    try {
      const parsed = schema.safeParse(JSON.parse(decoder.decode(openValue(this.#codec, sealed, context))));
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

/** A deployment record is sealed apart from the approval, so neither opens as the other. */
function deploymentContext(release: string): string {
  return `roundtrip/deployment/${release}`;
}

/** The ledger key of a release's deployment record, beside its approval's. */
function deploymentKey(release: string): string {
  return `${release}/deployment`;
}
