import { McpError } from "../../protocol/errors.js";
import { isPaginated } from "../../protocol/methods.js";
import type { Middleware } from "../middleware.js";

/**
 * McpServer lists every tool, prompt and resource in one page and never hands out a `nextCursor`, so
 * any cursor a client sends is one this server did not issue: refused with -32602 as pagination asks,
 * rather than ignored, which would serve the first page again as if it were the page after. `paged`
 * names the lists it does page (skills), whose cursors their handlers check.
 */
export function singlePageLists(paged: readonly string[] = []): Middleware {
  return (request, next) => {
    const cursor = request.params.cursor;
    if (cursor === undefined || !isPaginated(request.method) || paged.includes(request.method)) return next();
    return Promise.reject(
      McpError.invalidParams(
        `Invalid cursor: this server did not issue it; ${request.method} returns every entry in one page, so send it without a cursor`,
      ),
    );
  };
}
