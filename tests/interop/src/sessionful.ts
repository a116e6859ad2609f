import type { IncomingMessage, ServerResponse } from "node:http";
import { type Listening, listen } from "./listen.js";

/** What the official SDKs' sessionful Streamable HTTP transports have in common. */
export interface SessionTransport {
  handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

export interface SessionHooks {
  /** Call when the transport assigns its session id (its `onsessioninitialized`). */
  opened(sessionId: string): void;
  /** Call when the client ends the session (its `onsessionclosed`). */
  closed(sessionId: string): void;
}

export interface SessionfulServer extends Listening {
  /** Sessions open right now. */
  sessions(): number;
}

/**
 * The wiring a 2025-era deployment of an official SDK uses: one transport (and server) per session,
 * found by `Mcp-Session-Id`; a request without one gets a fresh transport, kept only if it opened a
 * session (a client's `server/discover` probe does not).
 */
export async function listenSessionful(
  open: (hooks: SessionHooks) => Promise<SessionTransport>,
): Promise<SessionfulServer> {
  const sessions = new Map<string, SessionTransport>();
  const listening = await listen(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const transport = sessions.get(id);
      if (transport) return transport.handleRequest(req, res);
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
      );
      return;
    }
    let opened = false;
    const transport = await open({
      opened: (sessionId) => {
        opened = true;
        sessions.set(sessionId, transport);
      },
      closed: (sessionId) => void sessions.delete(sessionId),
    });
    await transport.handleRequest(req, res);
    if (!opened) await transport.close();
  });
  return {
    ...listening,
    sessions: () => sessions.size,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      await listening.close();
    },
  };
}
