import type { Tool } from "../protocol/schemas/tools.js";
import type { ResultObject } from "./middleware.js";

/** One page of tools/list, as the server's own list handler answers it. */
export type ToolPageReader = (cursor: string | undefined) => Promise<ResultObject>;

/**
 * The tool definitions a server has listed, by name: what the transport checks a tools/call's
 * `Mcp-Param-*` headers against. Forgotten whenever the list may have changed (a new list handler, a
 * list-changed notification from any instance).
 */
export class ToolDirectory {
  #tools: Map<string, Tool> | undefined;

  forget(): void {
    this.#tools = undefined;
  }

  /** Keeps the definitions a tools/list result carries. */
  remember(result: ResultObject): void {
    const tools = result.tools as Tool[] | undefined;
    if (!Array.isArray(tools)) return;
    this.#tools ??= new Map();
    for (const tool of tools) this.#tools.set(tool.name, tool);
  }

  /** The tool `name`, reading the list page by page until it appears, when it is not known yet. */
  async lookup(name: string, readPage: ToolPageReader | undefined): Promise<Tool | undefined> {
    const known = this.#tools?.get(name);
    if (known || !readPage) return known;
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await readPage(cursor);
      this.remember(page);
      cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
      if (cursor !== undefined && seen.has(cursor)) break;
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined && !this.#tools?.has(name));
    return this.#tools?.get(name);
  }
}
