import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../../protocol/schemas/common.js";

/**
 * What a fleet keeps of one 2025-era session, so any instance can serve it: the facts `initialize`
 * and the session methods settled. Never a token, a requestState or what the user answered.
 */
export interface SessionRecord {
  principal: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  initialized: boolean;
  subscriptions: string[];
}

/** The bounds a transport holds sessions to, handed to the registry on every call. */
export interface SessionLimits {
  idleMs: number;
  maxPerPrincipal: number;
  /** The current time in ms. */
  now: number;
}

/**
 * Session facts shared by every instance of a fleet (a RedisSessionRegistry from
 * `@roundtrip/sdk/redis`). Live parts (streams, requests waiting for the client) stay with the
 * instance holding them and are reached through the server's NotificationBus.
 */
export interface SessionRegistry {
  /** Records a new session; rejects (the client gets 429) when its principal is at the cap. */
  create(id: string, record: SessionRecord, limits: SessionLimits): Promise<void>;
  /** The session's facts, its expiry pushed back; undefined when it ended, expired or is another principal's. */
  load(id: string, principal: string, limits: SessionLimits): Promise<SessionRecord | undefined>;
  /** Stores changed facts of a session that still exists. */
  save(id: string, record: SessionRecord, limits: SessionLimits): Promise<void>;
  /** Ends a session for every instance. */
  remove(id: string, principal: string): Promise<void>;
}
