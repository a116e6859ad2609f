import {
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  notification,
} from "../../protocol/jsonrpc.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";

export { abortReason, raceAbort } from "../../protocol/request-abort.js";

export interface TransportRequestOptions {
  /** Aborting cancels the request the way the transport knows how (closing the stream, notifications/cancelled). */
  signal?: AbortSignal;
  /** Extra HTTP request headers (the Mcp-Param-* of a tool call); other transports ignore them. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Runs work that is not waiting on the server, such as an auth provider signing in after a 401
   * (which may wait on the user), so that the request's timeout does not count it.
   */
  untimed?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Where a server-to-client request arrived: on the response stream of one of ours, or unrelated. */
export interface ServerRequestOrigin {
  /** The client request whose response stream carried it, when the transport can tell. */
  relatedTo?: JsonRpcRequest;
  /**
   * That request's signal: once its caller gives up, a question asked for it has nobody left to
   * answer for, whether or not the server gets to cancel the question itself.
   */
  signal?: AbortSignal;
}

/** Answers one server-to-client request; the transport delivers the response. */
export type ServerRequestHandler = (
  request: JsonRpcRequest,
  origin: ServerRequestOrigin,
) => Promise<JsonRpcResponse>;

/**
 * How a Client reaches a server. One request in, its one response out; 2026-07-28 servers never send
 * requests, so a transport only has to surface the notifications that travel with a response.
 *
 * The optional members carry a 2025-era session (initialize, server-to-client requests, session
 * headers); a transport without them speaks 2026-07-28 only.
 */
export interface ClientTransport {
  /** "http", "stdio" or "memory": decides which transport-specific rules apply (headers on HTTP). */
  readonly kind: string;
  request(request: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse>;
  /** Receives the progress and log notifications the server sends while it works. */
  onNotification?: (notification: JsonRpcNotification) => void;
  close(): Promise<void>;
  /** Answers the requests a 2025-era server sends (elicitation, sampling, roots, ping). */
  onRequest?: ServerRequestHandler;
  /** Sends one notification to the server (2025-era sessions: initialized, cancelled, roots changed). */
  notify?(message: JsonRpcNotification): Promise<void>;
  /** Enters the 2025-era session that `initialize` just opened: every later request carries its headers. */
  startSession?(protocolVersion: string): void;
  /** Opens the stream for server messages unrelated to a request (HTTP: GET), once initialized is sent. */
  listen?(): void;
  /** Ends the session (HTTP: DELETE) and forgets it; the transport stays usable for a new one. */
  endSession?(): Promise<void>;
}

/**
 * The notification that tells a 2025-era server an aborted request is no longer wanted: in that era a
 * closed stream or connection is not a cancellation, so the server keeps waiting on the call unless told.
 */
export function cancelledNotification(request: JsonRpcRequest, signal: AbortSignal): JsonRpcNotification {
  const reason = signal.reason instanceof Error ? signal.reason.message : "aborted by the client";
  return notification(NotificationMethod.cancelled, { requestId: request.id, reason });
}
