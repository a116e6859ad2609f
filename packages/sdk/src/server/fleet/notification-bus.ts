import type { LoggingLevel, RequestId } from "../../protocol/schemas/common.js";
import type { ClientAnswer } from "../legacy/outbound-requests.js";

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
