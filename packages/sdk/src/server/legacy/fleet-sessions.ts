import { InProcessNotificationBus } from "../fleet/in-process-notification-bus.js";
import type { BusEvent, NotificationBus } from "../fleet/notification-bus.js";
import type { SessionLimits, SessionRecord, SessionRegistry } from "../fleet/session-registry.js";
import type { LiveSessions } from "./live-sessions.js";
import type { ClientAnswer } from "./outbound-requests.js";
import { LegacySession } from "./session.js";

export function recordOf(session: LegacySession): SessionRecord {
  return {
    principal: session.principal,
    protocolVersion: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    ...(session.clientInfo ? { clientInfo: session.clientInfo } : {}),
    ...(session.logLevel ? { logLevel: session.logLevel } : {}),
    initialized: session.initialized,
    subscriptions: [...session.subscriptions],
  };
}

function apply(
  session: LegacySession,
  facts: Pick<SessionRecord, "logLevel" | "initialized" | "subscriptions">,
): void {
  session.logLevel = facts.logLevel;
  session.initialized = facts.initialized;
  session.subscriptions.clear();
  for (const uri of facts.subscriptions) session.subscriptions.add(uri);
}

export interface FleetSessionsOptions {
  /** This instance, as the ids of the questions it asks name it. */
  instance: string;
  shared: SessionRegistry;
  bus: NotificationBus;
  local: LiveSessions;
  limits: () => SessionLimits;
  /** Called for a session this instance starts serving although another opened it. */
  adopt: (session: LegacySession) => void;
  /** Reports what failed to reach the other instances (never the payload: it may hold answers). */
  onError: (what: string, error: unknown) => void;
  /** Hears of an answer sent here that answers no question this instance asked on that session. */
  onIgnoredAnswer: () => void;
}

/**
 * The fleet half of 2025-era sessions: facts in the shared registry, and what only the instance
 * holding a live part can do (settle a wait for the client's answer, cancel a request in flight,
 * write to the GET stream) reached through the bus. No instance needs to be the one that opened it.
 */
export class FleetSessions {
  readonly #options: FleetSessionsOptions;
  readonly #unsubscribe: () => void;
  readonly #keepAlive: NodeJS.Timeout;

  constructor(options: FleetSessionsOptions) {
    if (options.bus instanceof InProcessNotificationBus) {
      throw new TypeError(
        "legacy.sessions shares sessions across instances, and their answers and notifications need a shared bus too: pass bus: new RedisNotificationBus({ client, codec }) to the server, with the request-state keys every instance shares",
      );
    }
    this.#options = options;
    this.#unsubscribe = options.bus.subscribe((event) => this.#hear(event));
    // A session held open by a stream here sees no request, yet must not expire for the others.
    const every = Math.min(Math.max(options.limits().idleMs / 2, 1000), 60_000);
    this.#keepAlive = setInterval(() => this.#refreshBusy(), every);
    this.#keepAlive.unref();
  }

  create(session: LegacySession): Promise<void> {
    return this.#options.shared.create(session.id, recordOf(session), this.#options.limits());
  }

  /** The live session here for `id`, made from the shared facts when another instance opened it. */
  async find(id: string, principal: string): Promise<LegacySession | undefined> {
    const { local, shared } = this.#options;
    const limits = this.#options.limits();
    const record = await shared.load(id, principal, limits);
    const held = local.get(id, principal);
    if (!record) {
      held?.close();
      return undefined;
    }
    if (held) {
      apply(held, record);
      return held;
    }
    const session = new LegacySession({
      id,
      principal: record.principal,
      protocolVersion: record.protocolVersion,
      clientCapabilities: record.clientCapabilities,
      clientInfo: record.clientInfo,
      now: limits.now,
      instance: this.#options.instance,
    });
    apply(session, record);
    local.add(session);
    this.#options.adopt(session);
    return session;
  }

  /** Stores what a session method changed and tells the instances holding the session. */
  async share(session: LegacySession): Promise<void> {
    const record = recordOf(session);
    await this.#options.shared.save(session.id, record, this.#options.limits());
    this.#publish("session facts", {
      type: "session-facts",
      session: session.id,
      ...(record.logLevel ? { logLevel: record.logLevel } : {}),
      subscriptions: record.subscriptions,
      initialized: record.initialized,
    });
  }

  /** A client's answer to a question instance `to` asked: that instance alone settles it. */
  forwardAnswer(to: string, session: string, id: string | number, answer: ClientAnswer): void {
    this.#publish("a client's answer", { type: "answer", to, session, id, answer });
  }

  forwardCancel(session: string, requestId: string | number): void {
    this.#publish("a cancellation", { type: "cancel", session, requestId });
  }

  async end(session: LegacySession): Promise<void> {
    await this.#options.shared.remove(session.id, session.principal);
    session.close();
    this.#publish("the end of a session", { type: "session-ended", session: session.id });
  }

  close(): void {
    this.#unsubscribe();
    clearInterval(this.#keepAlive);
  }

  #publish(what: string, event: BusEvent): void {
    this.#options.bus.publish(event).catch((error: unknown) => this.#options.onError(what, error));
  }

  #hear(event: BusEvent): void {
    if (event.type === "notification") return;
    if (event.type === "answer") {
      this.#settle(event);
      return;
    }
    const session = this.#options.local.held(event.session);
    if (!session) return;
    if (event.type === "session-ended") session.close();
    else if (event.type === "session-facts") apply(session, event);
    else session.cancel(event.requestId);
  }

  /** Only the instance that asked acts on an answer, and only for a question of the session it names. */
  #settle(event: Extract<BusEvent, { type: "answer" }>): void {
    if (event.to !== this.#options.instance) return;
    const session = this.#options.local.held(event.session);
    if (!session?.outbound.settle(event.id, event.answer)) this.#options.onIgnoredAnswer();
  }

  #refreshBusy(): void {
    const limits = this.#options.limits();
    for (const session of this.#options.local.sessions()) {
      if (!session.busy) continue;
      this.#options.shared
        .load(session.id, session.principal, limits)
        .catch((error: unknown) => this.#options.onError("a session's expiry", error));
    }
  }
}
