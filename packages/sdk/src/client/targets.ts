import type { Logger } from "../logger.js";
import { Server, type ServerSource } from "../server/server.js";
import { type HttpClientOptions, HttpClientTransport } from "../transport/http-client.js";
import { MemoryClientTransport } from "../transport/memory-client.js";
import { StdioClientTransport, type StdioServerParameters } from "../transport/stdio-client.js";
import type { ClientTransport } from "./transport.js";

/** A URL (Streamable HTTP), a command to spawn (stdio), an in-process Server or McpServer, or any transport. */
export type ClientTarget = string | URL | ServerSource | StdioServerParameters | ClientTransport;

export function transportFor(
  target: ClientTarget,
  options: { http?: HttpClientOptions; logger?: Logger },
): ClientTransport {
  if (target instanceof Server) return new MemoryClientTransport(target);
  if (typeof target === "string" || target instanceof URL)
    return new HttpClientTransport(target, options.http);
  if ("server" in target && target.server instanceof Server) return new MemoryClientTransport(target.server);
  if ("request" in target && typeof target.request === "function") return target;
  return new StdioClientTransport({ logger: options.logger, ...(target as StdioServerParameters) });
}
