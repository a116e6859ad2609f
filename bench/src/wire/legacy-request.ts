/**
 * 2025-11-25 Streamable HTTP messages as the official v1 client sends them: `initialize` without a
 * session, then every message on the `Mcp-Session-Id` the server assigned, with the negotiated
 * `MCP-Protocol-Version`. No `_meta` envelope and no `Mcp-Method`/`Mcp-Name`: that era has neither.
 */
import type { CallParams, WireRequest } from "./mcp-request.js";

export const LEGACY_PROTOCOL_VERSION = "2025-11-25";

/** What the bench's legacy client declares for the whole session: forms, as the greet tool asks. */
const CAPABILITIES = Object.freeze({ elicitation: { form: {} } });

function request(body: string, sessionId: string | undefined): WireRequest {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "content-length": String(Buffer.byteLength(body)),
  };
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = LEGACY_PROTOCOL_VERSION;
  }
  return { body, headers };
}

export function initialize(id: number): WireRequest {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: LEGACY_PROTOCOL_VERSION,
      capabilities: CAPABILITIES,
      clientInfo: { name: "roundtrip-bench-legacy", version: "0.0.0" },
    },
  });
  return request(body, undefined);
}

export function initialized(sessionId: string): WireRequest {
  return request(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), sessionId);
}

export function legacyToolsCall(id: number, params: CallParams, sessionId: string): WireRequest {
  return request(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }), sessionId);
}

/** The client's answer to a request the server sent it on the session. */
export function answer(id: unknown, result: Record<string, unknown>, sessionId: string): WireRequest {
  return request(JSON.stringify({ jsonrpc: "2.0", id, result }), sessionId);
}
