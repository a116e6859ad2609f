import type { RequestContext } from "./context.js";

/** A result on its way out: any JSON object; `resultType` says which kind. */
export type ResultObject = Record<string, unknown>;

/** A request on its way in. Middleware may replace `params` (the request-state boundary does). */
export interface MiddlewareRequest {
  readonly method: string;
  params: Record<string, unknown>;
  readonly context: RequestContext;
}

/**
 * Sees every request before its handler and every result after it. Throwing an McpError answers the
 * request with that error; the handler then never runs.
 */
export type Middleware = (
  request: MiddlewareRequest,
  next: () => Promise<ResultObject>,
) => Promise<ResultObject>;

export function runMiddleware(
  chain: readonly Middleware[],
  request: MiddlewareRequest,
  handler: () => Promise<ResultObject>,
): Promise<ResultObject> {
  const step = (index: number): Promise<ResultObject> => {
    const middleware = chain[index];
    return middleware ? middleware(request, () => step(index + 1)) : handler();
  };
  return step(0);
}
