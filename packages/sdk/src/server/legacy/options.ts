import type { SessionRegistry } from "../fleet/session-registry.js";
import { type EventStore, InMemoryEventStore } from "./event-store.js";

export interface LegacyBridgeOptions {
  /** Input-required rounds one legacy request may take before it fails. Default 10. */
  maxRounds?: number;
  /** How long one legacy request may spend asking the client, in ms. Default 600 000 (the requestState TTL). */
  timeoutMs?: number;
}

/** How a server serves 2025-era (`initialize`) clients on the endpoint it serves 2026-07-28 on. */
export interface LegacyOptions {
  /** A session with no request, open stream or answer for this long ends (404 afterwards). Default 30 min. */
  sessionIdleMs?: number;
  /** Open sessions one principal (token issuer, client and subject; or anonymous) may hold. Default 100. */
  maxSessionsPerPrincipal?: number;
  /**
   * Requests one session may have open at once on each instance, each holding its POST response (an
   * SSE stream while the server asks the client something) until it is answered, a client that
   * dropped the response included. One more is refused with 429. Default 16.
   */
  maxRequestStreamsPerSession?: number;
  /** Where SSE events are kept for `Last-Event-ID` resumption. Default: an InMemoryEventStore. */
  eventStore?: EventStore;
  /**
   * Session facts shared by a fleet, so any instance serves any session without sticky routing
   * (a RedisSessionRegistry, with the server's `bus` on the same Redis). Default: this process only.
   */
  sessions?: SessionRegistry;
  /** Bounds on the rounds an input-required result takes when it is asked as real client requests. */
  bridge?: LegacyBridgeOptions;
  /** The current time in ms, for session expiry. Defaults to the system clock; tests pin it. */
  now?: () => number;
}

export interface ResolvedLegacyOptions {
  readonly sessionIdleMs: number;
  readonly maxSessionsPerPrincipal: number;
  readonly maxRequestStreamsPerSession: number;
  readonly eventStore: EventStore;
  readonly sessions: SessionRegistry | undefined;
  readonly maxRounds: number;
  readonly timeoutMs: number;
  readonly now: () => number;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 100;
export const DEFAULT_MAX_REQUEST_STREAMS_PER_SESSION = 16;
export const DEFAULT_BRIDGE_MAX_ROUNDS = 10;
export const DEFAULT_BRIDGE_TIMEOUT_MS = 600_000;

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`legacy.${name} must be a positive number`);
  return value;
}

function count(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`legacy.${name} must be a whole number, at least 1`);
  }
  return value;
}

/** `false` switches the legacy era off; anything else serves it, with these defaults. */
export function resolveLegacyOptions(
  option: boolean | LegacyOptions | undefined,
): ResolvedLegacyOptions | undefined {
  if (option === false) return undefined;
  const given = option === true || option === undefined ? {} : option;
  return {
    sessionIdleMs: positive(given.sessionIdleMs, DEFAULT_SESSION_IDLE_MS, "sessionIdleMs"),
    maxSessionsPerPrincipal: Math.floor(
      positive(given.maxSessionsPerPrincipal, DEFAULT_MAX_SESSIONS_PER_PRINCIPAL, "maxSessionsPerPrincipal"),
    ),
    maxRequestStreamsPerSession: count(
      given.maxRequestStreamsPerSession,
      DEFAULT_MAX_REQUEST_STREAMS_PER_SESSION,
      "maxRequestStreamsPerSession",
    ),
    eventStore: given.eventStore ?? new InMemoryEventStore(),
    sessions: given.sessions,
    maxRounds: Math.floor(positive(given.bridge?.maxRounds, DEFAULT_BRIDGE_MAX_ROUNDS, "bridge.maxRounds")),
    timeoutMs: positive(given.bridge?.timeoutMs, DEFAULT_BRIDGE_TIMEOUT_MS, "bridge.timeoutMs"),
    now: given.now ?? Date.now,
  };
}
