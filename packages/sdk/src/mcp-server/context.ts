import type { AuthInfo } from "../auth-info.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../protocol/schemas/common.js";
import type { InputResponses } from "../protocol/schemas/input-required.js";
import type { RequestContext } from "../server/context.js";

export type Awaitable<T> = T | Promise<T>;

/** What every McpServer handler may know about the request it serves. */
export interface McpContext {
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  /** This request's client capabilities; a retry may declare different ones. */
  readonly clientCapabilities: ClientCapabilities;
  /** Self-reported by the client: for display only, never for security decisions. */
  readonly clientInfo: Implementation | undefined;
  /** The validated access token, when the transport authenticated the request. */
  readonly auth: AuthInfo | undefined;
  /** Aborted when the client disconnects or cancels. */
  readonly signal: AbortSignal;
  /** Reports progress when the request asked for it; otherwise does nothing. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client when it asked for this level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** The low-level request context, for anything not surfaced here. */
  readonly request: RequestContext;
}

/**
 * The context of a handler that drives its own rounds (a hand-built tool, a prompt, a resource
 * template): what the client answered and the state this handler wrote last round.
 */
export interface InputContext extends McpContext {
  /** The plaintext state this handler put in its last InputRequiredResult, already verified and unsealed. */
  readonly requestState: string | undefined;
  /** The client's answers, keyed as this handler keyed its questions; undefined on the first round. */
  readonly inputResponses: InputResponses | undefined;
}

export interface ResourceContext extends McpContext {
  /** The URI the client asked to read. */
  readonly uri: string;
}

export interface ResourceInputContext extends InputContext {
  readonly uri: string;
}

/**
 * The handler's view of a request, plus any fields of its own (`uri`). `signal` stays a getter, so
 * the request's AbortSignal is made only for handlers that read it; spreading a context would read
 * it, which is why the extra fields are passed in rather than spread over the result.
 */
function handlerContext<Extra extends object>(request: RequestContext, extra: Extra): McpContext & Extra {
  return {
    requestId: request.requestId,
    protocolVersion: request.protocolVersion,
    clientCapabilities: request.clientCapabilities,
    clientInfo: request.clientInfo,
    auth: request.auth,
    get signal() {
      return request.signal;
    },
    sendProgress: (progress, total, message) => request.sendProgress(progress, total, message),
    log: (level, data, logger) => request.log(level, data, logger),
    request,
    ...extra,
  };
}

export function mcpContext(request: RequestContext): McpContext {
  return handlerContext(request, {});
}

/** A context for a static resource: it reads the URI but takes no part in rounds. */
export function resourceContext(request: RequestContext, uri: string): ResourceContext {
  return handlerContext(request, { uri });
}

interface RoundParams {
  requestState?: string;
  inputResponses?: InputResponses;
}

export function inputContext(request: RequestContext, params: RoundParams): InputContext;
export function inputContext<Extra extends object>(
  request: RequestContext,
  params: RoundParams,
  extra: Extra,
): InputContext & Extra;
export function inputContext(request: RequestContext, params: RoundParams, extra: object = {}): InputContext {
  return handlerContext(request, {
    requestState: params.requestState,
    inputResponses: params.inputResponses,
    ...extra,
  });
}
