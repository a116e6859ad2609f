import { isCarrierMethod } from "../protocol/carriers.js";
import { McpError } from "../protocol/errors.js";
import type { Logger } from "../protocol/logger.js";
import { isCacheable } from "../protocol/methods.js";
import { type CachePolicy, withCachePolicy } from "./cache-policy.js";
import { assertCapabilitiesFor, withDeclaredContext } from "./capability-gate.js";
import type { RequestContext } from "./context.js";
import { checkInputRequest } from "./input-request-check.js";
import type { ResultObject } from "./middleware.js";

/** What the checks of a handler's result need from its server. */
export interface ResultCheckOptions {
  logger: Logger;
  cache: Partial<CachePolicy> | undefined;
}

/**
 * A handler's result as it may go on the wire: an object, a valid InputRequiredResult (its questions
 * told the context the client declared), or a complete result with its `resultType` and cache fields.
 * A handler's mistake is logged for its author and reaches the client as -32603 only.
 */
export function checkedResult(
  context: RequestContext,
  result: ResultObject,
  params: Record<string, unknown>,
  options: ResultCheckOptions,
): ResultObject {
  if (typeof result !== "object" || result === null) {
    options.logger.error({ method: context.method }, "handler returned a non-object result");
    throw McpError.internal();
  }
  const resultType = result.resultType ?? "complete";
  if (resultType === "input_required") {
    checkInputRequired(context, result, options.logger);
    const inputRequests = withDeclaredContext(result.inputRequests, context.clientCapabilities);
    return inputRequests === result.inputRequests ? result : { ...result, inputRequests };
  }
  const complete = result.resultType === undefined ? { ...result, resultType } : result;
  if (!isCacheable(context.method)) return complete;
  // A retry's result answers one user's answers: it must never be served from a cache.
  const isRetry = params.requestState != null || params.inputResponses != null;
  return isRetry
    ? { ...complete, ttlMs: 0, cacheScope: "private" }
    : withCachePolicy(context.method, complete, options.cache);
}

function checkInputRequired(context: RequestContext, result: ResultObject, logger: Logger): void {
  const fail = (reason: string): never => {
    logger.error({ method: context.method, reason }, "handler returned an invalid InputRequiredResult");
    throw McpError.internal();
  };
  if (!isCarrierMethod(context.method)) {
    fail("only tools/call, prompts/get and resources/read may return input_required");
  }
  const requests = result.inputRequests as Record<string, unknown> | undefined;
  const hasRequests = requests !== undefined && Object.keys(requests).length > 0;
  if (!hasRequests && result.requestState === undefined) fail("neither inputRequests nor requestState");
  if (result.requestState !== undefined && typeof result.requestState !== "string") {
    fail("requestState is not a string");
  }
  if (!hasRequests) return;
  const parsed = [];
  for (const key of Object.keys(requests)) {
    const request = checkInputRequest(requests[key]);
    if (request === undefined) fail(`inputRequests.${key} is not an elicitation, sampling or roots request`);
    else parsed.push(request);
  }
  assertCapabilitiesFor(parsed, context.clientCapabilities);
}
