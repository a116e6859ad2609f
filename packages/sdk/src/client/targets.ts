import { type InProcessServer, isInProcessServer } from "../protocol/in-process-server.js";
import type { Logger } from "../protocol/logger.js";
import type { ClientTransport } from "./transport/client-transport.js";
import { type HttpClientOptions, HttpClientTransport } from "./transport/http-client.js";
import { MemoryClientTransport } from "./transport/memory-client.js";
import { StdioClientTransport, type StdioServerParameters } from "./transport/stdio-client.js";

/** A URL (Streamable HTTP), a command to spawn (stdio), an in-process Server or McpServer, or any transport. */
export type ClientTarget =
  | string
  | URL
  | InProcessServer
  | { readonly server: InProcessServer }
  | StdioServerParameters
  | ClientTransport;

export function transportFor(
  target: ClientTarget,
  options: { http?: HttpClientOptions; logger?: Logger },
): ClientTransport {
  if (isInProcessServer(target)) return new MemoryClientTransport(target);
  if (typeof target === "string" || target instanceof URL)
    return new HttpClientTransport(target, { logger: options.logger, ...options.http });
  if ("server" in target && isInProcessServer(target.server)) return new MemoryClientTransport(target.server);
  if ("request" in target && typeof target.request === "function") return target;
  return new StdioClientTransport({ logger: options.logger, ...(target as StdioServerParameters) });
}
