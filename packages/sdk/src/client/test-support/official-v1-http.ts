import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type EventStore,
  StreamableHTTPServerTransport,
} from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { officialV1Server } from "./official-v1-server.js";

export interface SeenHttpRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC method of a POST, or "response" for a POSTed response. */
  rpc: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface OfficialV1Http {
  url: string;
  seen: SeenHttpRequest[];
  /** Forgets a session as an expiring server would: its next request gets 404. */
  expire(sessionId: string): void;
  sessionIds(): string[];
  close(): Promise<void>;
}

/** Every event kept in memory, so a stream cut mid-call can be replayed from any id. */
function memoryEventStore(): EventStore {
  const events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}_${events.length + 1}`;
      events.push({ id, streamId, message });
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.find((event) => event.id === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const index = events.findIndex((event) => event.id === lastEventId);
      const streamId = events[index]?.streamId ?? "";
      for (const event of events.slice(index + 1)) {
        if (event.streamId === streamId) await send(event.id, event.message);
      }
      return streamId;
    },
  };
}

/**
 * The official v1 server behind its sessionful StreamableHTTPServerTransport on a real port: one
 * transport per session (the documented setup), 404 for a session it does not know.
 */
export async function startOfficialV1Http(
  options: { resumable?: boolean; build?: () => McpServer } = {},
): Promise<OfficialV1Http> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const seen: SeenHttpRequest[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    seen.push({
      method: req.method ?? "",
      headers: req.headers,
      rpc: body === undefined ? undefined : typeof body.method === "string" ? body.method : "response",
      body,
    });
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
        );
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      ...(options.resumable ? { eventStore: memoryEventStore(), retryInterval: 20 } : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await (options.build ?? officialV1Server)().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    expire: (id) => {
      sessions.delete(id);
    },
    sessionIds: () => [...sessions.keys()],
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
