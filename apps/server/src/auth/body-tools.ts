import type { IncomingMessage } from "node:http";

/**
 * The tools a request calls, as its body names them. A 2025-era client sends no `Mcp-Method` or
 * `Mcp-Name` header, and on a legacy session nothing holds such headers to the body, so a tool's
 * extra scope (deploy's `mcp:deploy`) is decided from the body too, or it could be called without it.
 */
export class BodyTools {
  readonly #tools = new WeakMap<IncomingMessage, readonly string[]>();

  /**
   * Notes the tools/call names in `body` (one message, or a 2025-03-26 batch); returns them. A body
   * that is not JSON names nothing: the transport answers it with its own parse error.
   */
  note(req: IncomingMessage, body: unknown): readonly string[] {
    if (!Buffer.isBuffer(body) || body.length === 0) return [];
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8"));
    } catch {
      return [];
    }
    const names = (Array.isArray(value) ? value : [value]).flatMap(calledTool);
    if (names.length > 0) this.#tools.set(req, names);
    return names;
  }

  of(req: IncomingMessage): readonly string[] {
    return this.#tools.get(req) ?? [];
  }
}

function calledTool(message: unknown): string[] {
  if (typeof message !== "object" || message === null) return [];
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && typeof params?.name === "string" ? [params.name] : [];
}
