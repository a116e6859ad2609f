import type { Implementation } from "../../protocol/schemas/common.js";
import {
  type McpServerInfo,
  type McpServerOptions,
  McpServer as ModernMcpServer,
} from "../mcp-server/mcp-server.js";
import { type EraComposer, Server as ModernServer, type ServerOptions } from "../server.js";
import { LegacyHttp } from "./legacy-http.js";
import { LegacyStdio } from "./legacy-stdio.js";
import { resolveLegacyOptions } from "./options.js";

/** The 2025 era for a server being made: none when its `legacy` option is false. */
export const composeLegacyEra: EraComposer = (server, option) => {
  const options = resolveLegacyOptions(option);
  if (!options) return undefined;
  return {
    stdio: (write) => new LegacyStdio(server, options, write),
    http: () => new LegacyHttp(server, options),
  };
};

/**
 * The low-level Server as `@roundtrip/sdk/server` exports it: the 2026-07-28 core with the 2025 era
 * composed in, served unless the `legacy` option is false.
 */
export class Server extends ModernServer {
  constructor(info: Implementation, options: ServerOptions = {}) {
    super(info, options, composeLegacyEra);
  }
}

/** McpServer as `@roundtrip/sdk/server` exports it: its low-level server is the Server above. */
export class McpServer extends ModernMcpServer {
  declare readonly server: Server;

  constructor(info: McpServerInfo = {}, options: McpServerOptions = {}) {
    super(info, options, (i, o) => new Server(i, o));
  }
}
