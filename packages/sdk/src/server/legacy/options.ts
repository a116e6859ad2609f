import type { SessionRegistry } from "../fleet/session-registry.js";
import type { EventStore, LegacyOptions } from "../unenveloped-era.js";
import { InMemoryEventStore } from "./event-store.js";

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
