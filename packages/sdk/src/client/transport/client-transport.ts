import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";

export interface TransportRequestOptions {
  /** Aborting cancels the request the way the transport knows how (closing the stream, notifications/cancelled). */
  signal?: AbortSignal;
  /** Extra HTTP request headers (the Mcp-Param-* of a tool call); other transports ignore them. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * How a Client reaches a server. One request in, its one response out; 2026-07-28 servers never send
 * requests, so a transport only has to surface the notifications that travel with a response.
 */
export interface ClientTransport {
  /** "http", "stdio" or "memory": decides which transport-specific rules apply (headers on HTTP). */
  readonly kind: string;
  request(request: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse>;
  /** Receives the progress and log notifications the server sends while it works. */
  onNotification?: (notification: JsonRpcNotification) => void;
  close(): Promise<void>;
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
