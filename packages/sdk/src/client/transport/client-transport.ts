import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";

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

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/** Settles with the promise, or rejects as soon as the signal aborts, whichever comes first. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The abandoned promise may still reject later; nobody is left to hear it.
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
