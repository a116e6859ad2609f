import type { Tool } from "../protocol/schemas/tools.js";
import type { ResultObject } from "./middleware.js";

/** One page of tools/list, as the server's own list handler answers it. */
export type ToolPageReader = (cursor: string | undefined) => Promise<ResultObject>;

/** The definition of the tool `name` as its registry holds it; undefined when none is registered. */
export type ToolDescriber = (name: string) => Tool | undefined;

/**
 * Where a tools/call finds the called tool's definition, which the transport checks the call against
 * (on HTTP, the `Mcp-Param-*` headers its `x-mcp-header` annotations ask for). A registry that describes
 * its tools (McpServer's) answers without running any handler; otherwise the definitions are what the
 * server's tools/list answered, forgotten whenever that list may have changed (a new list handler, a
 * list-changed notification from any instance).
 */
export class ToolDirectory {
  #describe: ToolDescriber | undefined;
  #listed: Map<string, Tool> | undefined;

  describeWith(describe: ToolDescriber): void {
    this.#describe = describe;
  }

  forget(): void {
    this.#listed = undefined;
  }

  /** Keeps the definitions a tools/list result carries. */
  remember(result: ResultObject): void {
    const tools = result.tools as Tool[] | undefined;
    if (!Array.isArray(tools)) return;
    this.#listed ??= new Map();
    for (const tool of tools) this.#listed.set(tool.name, tool);
  }

  /**
   * The tool `name`. Without a describer, and when no tools/list has named it yet, the list is read
   * page by page with `readPage` until it appears.
   */
  async find(name: string, readPage: ToolPageReader | undefined): Promise<Tool | undefined> {
    if (this.#describe) return this.#describe(name);
    const known = this.#listed?.get(name);
    if (known || !readPage) return known;
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await readPage(cursor);
      this.remember(page);
      cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
      if (cursor !== undefined && seen.has(cursor)) break;
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined && !this.#listed?.has(name));
    return this.#listed?.get(name);
  }
}
