import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "./jsonrpc.js";
import type { AbortSource } from "./request-abort.js";

/**
 * What a client needs of a server it calls in the same process: the low-level `Server` satisfies it
 * as it is, so the client side reaches a server without importing the server side.
 */
export interface InProcessServer {
  handleRequest(
    request: JsonRpcRequest,
    options: {
      signal?: AbortSource;
      notify?: (message: JsonRpcNotification) => void | Promise<void>;
      transport?: { kind: "memory" };
    },
  ): Promise<{ message: JsonRpcResponse }>;
}

export function isInProcessServer(value: unknown): value is InProcessServer {
  return typeof (value as { handleRequest?: unknown } | null)?.handleRequest === "function";
}
