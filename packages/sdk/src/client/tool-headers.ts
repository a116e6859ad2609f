import { type HeaderParam, headerParamsOf, paramHeaders } from "../protocol/http-headers.js";
import type { Logger } from "../protocol/logger.js";
import type { Tool } from "../protocol/schemas/tools.js";
import { ToolRejectedError } from "./errors.js";

/**
 * What the client remembers of tools/list: which arguments each tool mirrors into Mcp-Param-*
 * headers, and which tools it refused because their x-mcp-header annotations break the rules.
 */
export class ToolHeaderRegistry {
  readonly #params = new Map<string, HeaderParam[]>();
  readonly #rejected = new Map<string, string>();

  /** Remembers the tools and returns those the client may call; the others are logged and dropped. */
  admit(tools: readonly Tool[], logger: Logger): Tool[] {
    const admitted: Tool[] = [];
    for (const tool of tools) {
      const params = headerParamsOf(tool);
      if (typeof params === "string") {
        this.#params.delete(tool.name);
        this.#rejected.set(tool.name, params);
        logger.warn(
          { tool: tool.name, reason: params },
          "tool dropped from tools/list: its x-mcp-header annotations are invalid",
        );
        continue;
      }
      this.#rejected.delete(tool.name);
      this.#params.set(tool.name, params);
      admitted.push(tool);
    }
    return admitted;
  }

  knows(name: string): boolean {
    return this.#params.has(name);
  }

  /** A call to a tool that was dropped fails unsent, saying why it was dropped. */
  refuseCall(name: string): void {
    const reason = this.#rejected.get(name);
    if (reason !== undefined) throw new ToolRejectedError(name, reason);
  }

  headersFor(name: string, args: Record<string, unknown> | undefined): Record<string, string> {
    const params = this.#params.get(name);
    return params && params.length > 0 ? paramHeaders(params, args) : {};
  }
}
