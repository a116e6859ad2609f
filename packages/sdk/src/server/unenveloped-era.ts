import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from "../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/schemas/common.js";
import type { RequestMeta } from "../protocol/schemas/envelope.js";
import { META } from "../protocol/versions.js";
import type { AuthInfo } from "./auth-info.js";
import type { SessionRegistry } from "./fleet/session-registry.js";
import type { Accepted } from "./transport/accept-negotiation.js";
import type { HeaderRecord, RequestHead } from "./transport/request-head.js";
import type { ResponseWriter } from "./transport/response-writer.js";

/**
 * The era a transport hands the traffic no 2026-07-28 envelope claims: the 2025 era, whose clients
 * open a session with `initialize` and then send unenveloped requests on it. This module is all the
 * core knows of that era; `server/legacy/` implements it.
 *
 * It is composed where the `legacy` option is read, when a Server is made: the Server and McpServer
 * that `@roundtrip/sdk/server` exports pass the 2025 era's composer to the core constructors, which
 * call it with the option (`false` gives no era) and keep what it returns as `server.legacy`. Every
 * transport takes the era from the server it serves, so a server and its transports never disagree
 * about whether 2025-era clients are served, and nothing is registered at import time.
 */
export interface UnenvelopedEra {
  /** The era's side of one stdio connection, writing its own messages with `write`. */
  stdio(write: (message: JsonRpcMessage) => void): StdioEra;
  /** The era's side of one Streamable HTTP endpoint. */
  http(): HttpEra;
}

/** What stdio hands the era: the lines that belong to a session, or open one. */
export interface StdioEra {
  /** A line that is a response, not a request: true when the era took it (a session is open). */
  answer(value: unknown): boolean;
  /** A notification from the client; the era acts on those of an open session. */
  notify(message: JsonRpcNotification): Promise<void>;
  /**
   * Undefined when the request is not the era's (the modern path serves it). Otherwise the era answers
   * it, and the promise settles once the next line may be read: after `initialize` has opened its
   * session, at once for a request served on one.
   */
  serve(request: JsonRpcRequest): Promise<void> | undefined;
  /** The input ended: ends the sessions, then settles when every request the era serves has answered. */
  close(): Promise<void>;
}

/** What HTTP hands the era: its GET and DELETE, and the POSTs it claims. */
export interface HttpEra {
  /** Whether a POSTed message is the era's; reads a few properties only, so the modern path stays fast. */
  claims(headers: HeaderRecord, value: unknown): boolean;
  post(
    req: RequestHead,
    res: ResponseWriter,
    value: unknown,
    auth: AuthInfo | undefined,
    accept: Accepted,
  ): Promise<void>;
  get(req: RequestHead, res: ResponseWriter, auth: AuthInfo | undefined, accept: Accepted): Promise<void>;
  delete(req: RequestHead, res: ResponseWriter, auth: AuthInfo | undefined): Promise<void>;
}

/**
 * What a 2025-era session settled at `initialize` (and `logging/setLevel` since): the dispatcher builds
 * each of its requests' RequestMeta from it, so middleware, the capability gate and handlers see the
 * same shapes on both eras.
 */
export interface LegacySessionFacts {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * The RequestMeta a 2025-era request would have carried: the session's version, capabilities, client
 * and log level, and the progressToken the request itself asked for.
 */
export function sessionMeta(session: LegacySessionFacts, params: Record<string, unknown>): RequestMeta {
  const meta: RequestMeta = {
    [META.protocolVersion]: session.protocolVersion,
    [META.clientCapabilities]: session.clientCapabilities,
  };
  if (session.clientInfo !== undefined) meta[META.clientInfo] = session.clientInfo;
  if (session.logLevel !== undefined) meta[META.logLevel] = session.logLevel;
  const token = (params._meta as Record<string, unknown> | undefined)?.progressToken;
  if (typeof token === "string" || typeof token === "number") meta.progressToken = token;
  return meta;
}

/**
 * Where the messages of a 2025-era session's SSE streams are kept, so a client that lost a stream can
 * reconnect with `Last-Event-ID` and receive what it missed. Event ids are `<streamId>:<sequence>`;
 * stream ids begin with their session's id, so a transport can refuse an id from another session.
 */
export interface EventStore {
  /** Records one message sent on a stream and returns the event id it travels under. */
  append(streamId: string, message: JsonRpcMessage): Promise<string>;
  /**
   * Sends, in order, every message recorded on the stream of `lastEventId` after that event, and
   * returns that stream's id; undefined when the event is unknown (never recorded, or evicted).
   */
  replayAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void | Promise<void>,
  ): Promise<string | undefined>;
  /** Forgets a stream that can no longer be resumed (its session ended). */
  forget(streamId: string): Promise<void>;
}

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
