import type { InProcessServer } from "../../protocol/in-process-server.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { RequestAbort } from "../../protocol/request-abort.js";
import {
  abortReason,
  type ClientTransport,
  raceAbort,
  type TransportRequestOptions,
} from "./client-transport.js";

/** JSON in, JSON out: the server must never share an object with the caller, exactly as on a wire. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Dispatches straight to an in-process `Server` through `handleRequest`: no sockets, no framing, but the
 * same copy semantics as a wire, and aborting a request aborts the handler's signal.
 */
export class MemoryClientTransport implements ClientTransport {
  readonly kind = "memory";
  readonly server: InProcessServer;
  onNotification?: (notification: JsonRpcNotification) => void;

  constructor(server: InProcessServer) {
    this.server = server;
  }

  async request(request: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const handlerAbort = new RequestAbort();
    const abort = () => handlerAbort.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    try {
      const handled = this.server.handleRequest(copy(request), {
        signal: handlerAbort,
        transport: { kind: "memory" },
        notify: (message) => this.onNotification?.(copy(message)),
      });
      const { message } = await raceAbort(handled, signal);
      return copy(message);
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }

  async close(): Promise<void> {}
}
