import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { officialServerFactory } from "./official.js";

/**
 * The official SDK v2 serving 2025-era sessions the way a deployment that keeps them does: one
 * McpServer and one sessionful transport per `Mcp-Session-Id`, in this process's memory. Its
 * input-required shim (on by default) turns the greet tool's InputRequiredResult into a real
 * `elicitation/create` on the call's stream. A request without a session gets a fresh pair, kept only
 * if it opened one.
 */
export function officialSessionfulHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const build = officialServerFactory(true);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const transport = sessions.get(id);
      if (transport) return transport.handleRequest(req, res);
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
        );
      return;
    }
    let opened = false;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        opened = true;
        sessions.set(sessionId, transport);
      },
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await build().connect(transport);
    await transport.handleRequest(req, res);
    if (!opened) await transport.close();
  };
  return (req, res) => void serve(req, res);
}
