import { AsyncLocalStorage } from "node:async_hooks";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { carrierTarget, decodeHeaderValue, HEADER } from "@roundtrip/sdk/protocol";

/**
 * What every log line written while a request is served says about it: its id, and for an MCP request
 * its method and the tool, prompt or URI it names. Filled as the request is read; never the params.
 */
export interface RequestScope {
  reqId?: string;
  mcpMethod?: string;
  mcpTarget?: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * Fastify's `serverFactory`: each request is served inside its own scope, so everything it causes
 * (Fastify's hooks, the MCP SDK's middleware and its log lines) runs in it, whoever logs.
 */
export function scopedServerFactory(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  return createServer((req, res) => scopes.run({}, () => handler(req, res)));
}

export function currentScope(): RequestScope | undefined {
  return scopes.getStore();
}

/** Bodies read only to name the request in the log; a larger one goes unnamed rather than parsed twice. */
const DESCRIBED_BODY_BYTES = 64 * 1024;

/**
 * Names the MCP method and its target in the scope. A 2026-07-28 request says both in its Mcp-Method
 * and Mcp-Name headers, which the transport holds to the body; a 2025-era request only in its body.
 */
export function describeMcpRequest(headers: IncomingHttpHeaders, body: unknown): void {
  const scope = scopes.getStore();
  if (scope === undefined) return;
  const method = headerValue(headers[HEADER.method]);
  if (method !== undefined) {
    scope.mcpMethod = method.slice(0, 64);
    const name = headerValue(headers[HEADER.name]);
    if (name !== undefined) scope.mcpTarget = name.slice(0, 256);
    return;
  }
  if (!Buffer.isBuffer(body) || body.length > DESCRIBED_BODY_BYTES) return;
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return;
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return;
  const { method: bodyMethod, params } = message as { method?: unknown; params?: unknown };
  if (typeof bodyMethod !== "string") return;
  scope.mcpMethod = bodyMethod.slice(0, 64);
  const target =
    typeof params === "object" && params !== null
      ? carrierTarget(bodyMethod, params as Record<string, unknown>)
      : undefined;
  if (target !== undefined) scope.mcpTarget = target.slice(0, 256);
}

function headerValue(raw: string | string[] | undefined): string | undefined {
  return typeof raw === "string" ? decodeHeaderValue(raw) : undefined;
}

/** Records the request id once Fastify has chosen it. */
export function nameRequest(reqId: string): void {
  const scope = scopes.getStore();
  if (scope !== undefined) scope.reqId = reqId;
}

/**
 * pino's mixin: the scope's fields on every line, except a `reqId` the line's logger already binds
 * (Fastify's request logger), which would otherwise appear twice.
 */
export function scopeFields(bindings: () => Record<string, unknown>): Record<string, unknown> {
  const scope = scopes.getStore();
  if (scope === undefined) return {};
  const { reqId, ...rest } = scope;
  return reqId === undefined || "reqId" in bindings() ? rest : { reqId, ...rest };
}
