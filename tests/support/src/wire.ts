import { LATEST_PROTOCOL_VERSION } from "@roundtrip/sdk";
import { META } from "@roundtrip/sdk/protocol";

export interface ToolReply {
  status: number;
  /** The WWW-Authenticate header, parsed; undefined when absent. */
  challenge: Challenge | undefined;
  /** The JSON body, if any. */
  body: Record<string, unknown> | undefined;
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses `Bearer k="v", k2="v2"` (quoted values only, as this server sends). */
export function parseChallenge(header: string): Challenge {
  const [scheme = "", ...rest] = header.split(" ");
  const params: Record<string, string> = {};
  for (const match of rest.join(" ").matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    const [, key, value] = match;
    if (key !== undefined && value !== undefined) params[key] = value;
  }
  return { scheme, params };
}

export interface CallOptions {
  token?: string;
  /** The name the Mcp-Name header claims; default the tool called. */
  headerName?: string;
  /** Appended to the URL, e.g. `?access_token=...`. */
  query?: string;
  authorization?: string;
  arguments?: Record<string, unknown>;
  /** What the client declares it can be asked (`elicitation`, `sampling`, `roots`); default nothing. */
  capabilities?: Record<string, unknown>;
  /** A retry's own params: `requestState` and `inputResponses`. */
  retry?: { requestState?: string; inputResponses?: Record<string, unknown> };
}

let nextId = 1;

/** The headers a correct 2026-07-28 client sends with a POST of `method`. */
function mcpHeaders(method: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    "mcp-method": method,
  };
}

/** A request's `_meta`, as a correct 2026-07-28 client fills it. */
function mcpMeta(capabilities: Record<string, unknown> = {}) {
  return {
    [META.protocolVersion]: LATEST_PROTOCOL_VERSION,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: "auth-e2e", version: "0.0.0" },
  };
}

/** One tools/call POST with the headers a correct 2026-07-28 client sends. */
export async function callTool(url: string, tool: string, options: CallOptions = {}): Promise<ToolReply> {
  const headers: Record<string, string> = {
    ...mcpHeaders("tools/call"),
    "mcp-name": options.headerName ?? tool,
  };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${url}${options.query ?? ""}`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        _meta: mcpMeta(options.capabilities),
        name: tool,
        arguments: options.arguments ?? {},
        ...options.retry,
      },
    }),
  });
  const text = await response.text();
  const header = response.headers.get("www-authenticate");
  return {
    status: response.status,
    challenge: header === null ? undefined : parseChallenge(header),
    body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

/**
 * One tools/list POST with the headers a correct 2026-07-28 client sends, plus `headers` (its
 * authorization, a DPoP proof): the response as it came, for tests that read its status and headers.
 */
export function postToolsList(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...mcpHeaders("tools/list"), ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/list",
      params: { _meta: mcpMeta() },
    }),
  });
}

/** The principal a successful whoami/deploy call answered with. */
export function principalFrom(reply: ToolReply): Record<string, unknown> {
  const result = reply.body?.result as { content?: { text?: string }[] } | undefined;
  const text = result?.content?.[0]?.text;
  if (reply.status !== 200 || text === undefined) {
    throw new Error(`expected a tool result, got HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}
