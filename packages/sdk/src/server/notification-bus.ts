import type { LoggingLevel, RequestId } from "../protocol/schemas/common.js";
import type { ClientAnswer } from "./legacy/outbound-requests.js";

/**
 * What one instance tells the others: a notification for listen streams and legacy sessions, and what
 * a 2025-era session needs from whichever instance holds its live parts (its GET stream, a request in
 * flight, and a question waiting for the client's answer: an answer names the one instance, `to`,
 * that asked it). Events carry what users sent, so a bus between processes must authenticate them.
 */
export type BusEvent =
  | { type: "notification"; method: string; params?: Record<string, unknown> }
  | { type: "session-ended"; session: string }
  | {
      type: "session-facts";
      session: string;
      logLevel?: LoggingLevel;
      subscriptions: string[];
      initialized: boolean;
    }
  | { type: "answer"; to: string; session: string; id: RequestId; answer: ClientAnswer }
  | { type: "cancel"; session: string; requestId: RequestId };

export type BusListener = (event: BusEvent) => void;

/**
 * Carries what the server broadcasts to every instance of a fleet. Each listener hears each event
 * exactly once, including events its own instance published, and publishing delivers to the local
 * listeners before it resolves, so a bus that cannot reach the others still serves this instance.
 */
export interface NotificationBus {
  /** Delivers locally, then to the other instances; rejects when the others could not be reached. */
  publish(event: BusEvent): Promise<void>;
  /** Returns the function that removes the listener. */
  subscribe(listener: BusListener): () => void;
}

/** Listeners of one process; a listener that throws does not keep the event from the others. */
export class LocalListeners {
  readonly #listeners = new Set<BusListener>();

  add(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  deliver(event: BusEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener must not starve the rest; each reports its own failures.
      }
    }
  }
}

/** The default: one process is the whole fleet. */
export class InProcessNotificationBus implements NotificationBus {
  readonly #listeners = new LocalListeners();

  publish(event: BusEvent): Promise<void> {
    this.#listeners.deliver(event);
    return Promise.resolve();
  }

  subscribe(listener: BusListener): () => void {
    return this.#listeners.add(listener);
  }
}
