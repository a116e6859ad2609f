/**
 * 2026-07-28 Streamable HTTP requests as a correct client sends them: the `_meta` envelope in the body
 * and the same facts mirrored in headers, so every target gets identical, valid traffic.
 */
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";

export const PROTOCOL_VERSION = "2026-07-28";

const ENVELOPE = Object.freeze({
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "roundtrip-bench", version: "0.0.0" },
});

/** The same client, declaring the tasks extension: a server may then answer a tools/call with a task. */
const TASKS_ENVELOPE = Object.freeze({
  ...ENVELOPE,
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {} },
    extensions: { [TASKS_EXTENSION]: {} },
  },
});

export interface WireRequest {
  /** The JSON text of the body. */
  body: string;
  headers: Record<string, string>;
}

export interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

function headersFor(method: string, name: string | undefined, body: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "content-length": String(Buffer.byteLength(body)),
    "mcp-protocol-version": PROTOCOL_VERSION,
    "mcp-method": method,
  };
  // The bench's tool names are safe ASCII, so the header needs none of the base64 encoding.
  if (name !== undefined) headers["mcp-name"] = name;
  return headers;
}

export function toolsCall(id: number, params: CallParams, options: { tasks?: boolean } = {}): WireRequest {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { ...params, _meta: options.tasks ? TASKS_ENVELOPE : ENVELOPE },
  });
  return { body, headers: headersFor("tools/call", params.name, body) };
}

export function toolsList(id: number): WireRequest {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: ENVELOPE } });
  return { body, headers: headersFor("tools/list", undefined, body) };
}

/** A task's id is base64url, so it goes in Mcp-Name as it is. */
export function tasksGet(id: number, taskId: string): WireRequest {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tasks/get",
    params: { taskId, _meta: TASKS_ENVELOPE },
  });
  return { body, headers: headersFor("tasks/get", taskId, body) };
}
