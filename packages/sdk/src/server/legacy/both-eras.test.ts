import { describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import { errorOf, handle } from "../../test-support/in-process.js";
import { McpServer as CoreMcpServer } from "../mcp-server/mcp-server.js";
import { Server as CoreServer } from "../server.js";
import { McpServer, Server } from "./both-eras.js";

const INFO = { name: "eras", version: "1" };
const INITIALIZE = {
  jsonrpc: "2.0" as const,
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } },
};

describe("the 2025 era, composed when a server is made", () => {
  it("is on by default for the exported Server and McpServer, and off with legacy: false", () => {
    expect(new Server(INFO, { logger: silentLogger }).legacy).toBeDefined();
    expect(new McpServer(INFO, { logger: silentLogger }).server.legacy).toBeDefined();
    expect(new Server(INFO, { logger: silentLogger, legacy: false }).legacy).toBeUndefined();
    expect(new McpServer(INFO, { logger: silentLogger, legacy: false }).server.legacy).toBeUndefined();
  });

  it("gives McpServer the exported Server as its low-level server", () => {
    const mcp = new McpServer(INFO, { logger: silentLogger });
    expect(mcp.server).toBeInstanceOf(Server);
    expect(mcp.server).toBeInstanceOf(CoreServer);
  });

  it("checks the legacy option when the server is made", () => {
    expect(() => new Server(INFO, { legacy: { sessionIdleMs: 0 } })).toThrow(
      "legacy.sessionIdleMs must be a positive number",
    );
  });

  it("is absent from the core classes made without its composer: initialize gets -32022", async () => {
    const core = new CoreServer(INFO, { logger: silentLogger });
    expect(core.legacy).toBeUndefined();
    expect(new CoreMcpServer(INFO, { logger: silentLogger }).server.legacy).toBeUndefined();
    expect(errorOf(await handle(core, INITIALIZE)).code).toBe(-32022);
    expect(errorOf(await handle(new Server(INFO, { logger: silentLogger }), INITIALIZE)).code).toBe(-32600);
  });
});
