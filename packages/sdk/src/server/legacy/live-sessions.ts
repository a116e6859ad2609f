import { McpError } from "../../protocol/errors.js";
import type { LegacySession } from "./session.js";
import { checkSessionFacts } from "./session-facts.js";

export const sessionLimitMessage = (held: number): string =>
  `Too many open sessions (${held}) for this client: end one with DELETE, or let an idle one expire, then initialize again`;

// A session is only ever served to the principal that opened it.
export { principalOf } from "../principal.js";

/** Refused when a principal already holds as many sessions as it may. */
export class SessionLimitExceeded extends McpError {}

export interface LiveSessionsOptions {
  idleMs: number;
  maxPerPrincipal: number;
  now: () => number;
}

/**
 * The sessions this process holds live, ended after `idleMs` without activity and capped per
 * principal. In a fleet these are the local halves of sessions whose facts a SessionRegistry shares.
 */
export class LiveSessions {
  readonly #sessions = new Map<string, LegacySession>();
  readonly #perPrincipal = new Map<string, number>();
  readonly #options: LiveSessionsOptions;
  #sweep: NodeJS.Timeout | undefined;

  constructor(options: LiveSessionsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Holds a new session; refuses one over its principal's cap, or whose client-chosen facts weigh too much. */
  add(session: LegacySession): void {
    checkSessionFacts(session);
    this.#expireIdle();
    const held = this.#perPrincipal.get(session.principal) ?? 0;
    if (held >= this.#options.maxPerPrincipal) {
      throw new SessionLimitExceeded(-32600, sessionLimitMessage(held));
    }
    this.#sessions.set(session.id, session);
    this.#perPrincipal.set(session.principal, held + 1);
    session.onClose(() => this.#forget(session));
    this.#startSweep();
  }

  get(id: string, principal: string): LegacySession | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.principal !== principal) return undefined;
    if (session.isIdle(this.#options.now(), this.#options.idleMs)) {
      session.close();
      return undefined;
    }
    return session;
  }

  /** The session with this id, whoever it belongs to and however idle: for messages between instances. */
  held(id: string): LegacySession | undefined {
    return this.#sessions.get(id);
  }

  remove(id: string): void {
    this.#sessions.get(id)?.close();
  }

  sessions(): Iterable<LegacySession> {
    return this.#sessions.values();
  }

  close(): void {
    for (const session of [...this.#sessions.values()]) session.close();
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
  }

  #forget(session: LegacySession): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    const held = (this.#perPrincipal.get(session.principal) ?? 1) - 1;
    if (held > 0) this.#perPrincipal.set(session.principal, held);
    else this.#perPrincipal.delete(session.principal);
    if (this.#sessions.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  #expireIdle(): void {
    const now = this.#options.now();
    for (const session of [...this.#sessions.values()]) {
      if (session.isIdle(now, this.#options.idleMs)) session.close();
    }
  }

  /** Frees idle sessions nobody asks for again; unref'd so it never keeps a process alive. */
  #startSweep(): void {
    if (this.#sweep) return;
    const every = Math.min(Math.max(this.#options.idleMs / 2, 1000), 60_000);
    this.#sweep = setInterval(() => this.#expireIdle(), every);
    this.#sweep.unref();
  }
}
