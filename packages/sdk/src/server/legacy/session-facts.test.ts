import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../protocol/errors.js";
import { silentLogger } from "../../protocol/logger.js";
import { LATEST_LEGACY_PROTOCOL_VERSION } from "../../protocol/versions.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { McpServer } from "../index.js";
import { MAX_SESSION_FACTS_BYTES } from "./session-facts.js";
import { initializeMessage, RawStream, rawPost, rawSession } from "./test-support/raw-session.js";

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

/** A server holding at most one session per principal, so a refused initialize that kept a slot shows. */
async function serveOneSession(): Promise<{ mcp: McpServer; url: string }> {
  const mcp = new McpServer(
    { name: "facts", version: "1.0.0" },
    { logger: silentLogger, legacy: { maxSessionsPerPrincipal: 1 } },
  );
  mcp.resource("a", { uri: "test://a", mimeType: "text/plain" }, () => "A");
  const http = await startHttpServer(mcp.server);
  running.push(http);
  return { mcp, url: http.url };
}

const call = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

const TOO_LARGE = new RegExp(`beyond this server's limit of ${MAX_SESSION_FACTS_BYTES} bytes`);

describe("what a 2025-era session can make a server keep", () => {
  it("refuses an initialize whose capabilities outweigh the limit with -32602, and keeps nothing of it", async () => {
    const { url } = await serveOneSession();
    const capabilities = { experimental: { blob: { data: "x".repeat(3_600_000) } } };
    const reply = await rawPost(url, initializeMessage(LATEST_LEGACY_PROTOCOL_VERSION, capabilities));
    expect(reply.status).toBe(400);
    expect(reply.headers.get("mcp-session-id")).toBeNull();
    expect(reply.messages[0]).toMatchObject({ id: 1, error: { code: ErrorCode.InvalidParams } });
    const message = JSON.stringify(reply.messages[0]);
    expect(message).toMatch(/come to 36000\d\d bytes as JSON/);
    expect(message).toMatch(TOO_LARGE);
    expect(message).toContain("initialize with only the capabilities the client uses");
    // The principal's one slot is still free: the refused session was never held.
    await rawSession(url);
  });

  it("refuses clientInfo that outweighs the limit, such as an icon sent inline", async () => {
    const { url } = await serveOneSession();
    const message = initializeMessage();
    const icon = `data:image/png;base64,${"A".repeat(MAX_SESSION_FACTS_BYTES)}`;
    const reply = await rawPost(url, {
      ...message,
      params: { ...message.params, clientInfo: { name: "raw", version: "1", icons: [{ src: icon }] } },
    });
    expect(reply.status).toBe(400);
    expect(reply.messages[0]).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    expect(JSON.stringify(reply.messages[0])).toMatch(TOO_LARGE);
    await rawSession(url);
  });

  it("opens a session whose facts are within the limit", async () => {
    const { url } = await serveOneSession();
    const capabilities = { experimental: { notes: { text: "x".repeat(MAX_SESSION_FACTS_BYTES / 2) } } };
    const reply = await rawPost(url, initializeMessage(LATEST_LEGACY_PROTOCOL_VERSION, capabilities));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("mcp-session-id")).toBeTruthy();
  });

  it("refuses a subscription that would take the session past the limit, and keeps the ones it had", async () => {
    const { mcp, url } = await serveOneSession();
    const session = await rawSession(url);
    const stream = await RawStream.get(url, session.headers);
    const first = await rawPost(url, call(2, "resources/subscribe", { uri: "test://a" }), session.headers);
    expect(first.messages[0]).toMatchObject({ id: 2, result: {} });
    const huge = `test://${"b".repeat(MAX_SESSION_FACTS_BYTES)}`;
    const refused = await rawPost(url, call(3, "resources/subscribe", { uri: huge }), session.headers);
    expect(refused.messages[0]).toMatchObject({ id: 3, error: { code: ErrorCode.InvalidParams } });
    expect(JSON.stringify(refused.messages[0])).toMatch(TOO_LARGE);
    expect(JSON.stringify(refused.messages[0])).toContain("unsubscribe from resources it no longer follows");
    // The refused URI was not added; the one before it still is.
    mcp.server.notifyResourceUpdated(huge);
    mcp.server.notifyResourceUpdated("test://a");
    expect((await stream.next())?.message).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "test://a" },
    });
    stream.close();
  });
});
