import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";

export interface OfficialV1 {
  url: string;
  close(): Promise<void>;
}

/**
 * A 2025-era server built with the official TypeScript SDK v1 (1.32.2) on its sessionful Streamable
 * HTTP transport: its tools ask the CLI back with elicitation, sampling and roots requests during the
 * call, the way 2025-era servers do.
 */
function officialServer(): McpServer {
  const server = new McpServer({ name: "official-v1", version: "1.32.2" });
  server.registerTool("greet", { inputSchema: {} }, async (_args, extra) => {
    const answer = await server.server.elicitInput(
      {
        message: "What is your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string", default: "friend" } },
          required: ["name"],
        },
      },
      { relatedRequestId: extra.requestId },
    );
    const name = answer.action === "accept" ? String(answer.content?.name) : `(${answer.action})`;
    return { content: [{ type: "text", text: `Hello, ${name}` }] };
  });
  server.registerTool("plan", { inputSchema: {} }, async (_args, extra) => {
    const trip = await server.server.elicitInput(
      {
        message: "Where to?",
        requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      { relatedRequestId: extra.requestId },
    );
    const city = String(trip.content?.city);
    const sampled = await server.server.createMessage(
      { messages: [{ role: "user", content: { type: "text", text: `Plan ${city}` } }], maxTokens: 20 },
      { relatedRequestId: extra.requestId },
    );
    const text = sampled.content.type === "text" ? sampled.content.text : "";
    return { content: [{ type: "text", text: `${city}: ${text}` }] };
  });
  server.registerTool("login", { inputSchema: {} }, async (_args, extra) => {
    const answer = await server.server.elicitInput(
      {
        mode: "url",
        message: "Sign in to continue",
        url: "https://id.example.com/login",
        elicitationId: "l-1",
      },
      { relatedRequestId: extra.requestId },
    );
    return { content: [{ type: "text", text: answer.action }] };
  });
  // The refinement is the server's own rule: it is not in the JSON Schema the tool advertises, so only
  // the server can refuse a value that breaks it.
  server.registerTool(
    "repeat",
    {
      inputSchema: {
        times: z
          .number()
          .int()
          .refine((times) => times <= 10, "at most 10 times"),
      },
    },
    async ({ times }) => ({ content: [{ type: "text", text: "again ".repeat(times) }] }),
  );
  server.registerTool("where", { inputSchema: {} }, async () => {
    const { roots } = await server.server.listRoots();
    return { content: [{ type: "text", text: roots.map((root) => root.uri).join(",") }] };
  });
  return server;
}

export async function startOfficialV1(): Promise<OfficialV1> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text ? JSON.parse(text) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && !known) {
      res.writeHead(404).end();
      return;
    }
    if (known) return known.handleRequest(req, res, body);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await officialServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
