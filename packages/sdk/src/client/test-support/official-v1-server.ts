import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";

/**
 * A 2025-era server built with the official TypeScript SDK v1 (1.32.2), the peer most hosts ship:
 * tools that ask the client back through server-to-client requests, on the response stream of the
 * call (related) or unrelated to it (the GET stream on HTTP), and one that changes its tool list.
 */
export function officialV1Server(): McpServer {
  const server = new McpServer(
    { name: "official-v1", version: "1.32.2" },
    { capabilities: { logging: {} }, instructions: "A 2025-era server." },
  );

  server.registerTool("add", { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));

  server.registerTool("greet", { inputSchema: {} }, async (_args, extra) => {
    const answer = await server.server.elicitInput(
      {
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
      { relatedRequestId: extra.requestId },
    );
    const name = answer.action === "accept" ? String(answer.content?.name) : `(${answer.action})`;
    return { content: [{ type: "text", text: `Hello, ${name}` }] };
  });

  // Two round trips in one call: a form, then a completion that uses its answer.
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
      {
        messages: [{ role: "user", content: { type: "text", text: `Plan a day in ${city}` } }],
        maxTokens: 50,
      },
      { relatedRequestId: extra.requestId },
    );
    const text = sampled.content.type === "text" ? sampled.content.text : "";
    return { content: [{ type: "text", text: `${city}: ${text}` }] };
  });

  // Not tied to the call: on HTTP this request travels on the session's GET stream.
  server.registerTool("where", { inputSchema: {} }, async () => {
    const { roots } = await server.server.listRoots();
    return { content: [{ type: "text", text: roots.map((root) => root.uri).join(",") }] };
  });

  server.registerTool("url-login", { inputSchema: {} }, async (_args, extra) => {
    const answer = await server.server.elicitInput(
      { mode: "url", message: "Sign in", url: "https://example.com/login", elicitationId: "login-1" },
      { relatedRequestId: extra.requestId },
    );
    await server.server.createElicitationCompletionNotifier("login-1")();
    return { content: [{ type: "text", text: answer.action }] };
  });

  server.registerTool("chatty", { inputSchema: {} }, async (_args, extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress: 1, total: 2, message: "halfway" },
      });
    }
    await server.sendLoggingMessage({ level: "warning", data: "careful" }, extra.sessionId);
    return { content: [{ type: "text", text: "done" }] };
  });

  // Cuts its response stream before answering: a client resumes with Last-Event-ID to get the result.
  server.registerTool("cut", { inputSchema: {} }, async (_args, extra) => {
    extra.closeSSEStream?.();
    return { content: [{ type: "text", text: "after the cut" }] };
  });

  let grown = 0;
  server.registerTool("grow", { inputSchema: {} }, async () => {
    grown += 1;
    server.registerTool(`grown-${grown}`, { inputSchema: {} }, async () => ({ content: [] }));
    return { content: [{ type: "text", text: `grown-${grown}` }] };
  });

  return server;
}
