import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../../protocol/schemas/common.js";
import type { InputResponses } from "../../protocol/schemas/input-required.js";
import type { AuthInfo } from "../auth-info.js";
import type { RequestContext } from "../context.js";

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
 * The handler's view of a request. A class, not an object literal with a `signal` getter: such a
 * literal gets a hidden class of its own that keeps the request alive until the next full GC.
 * `signal` stays a getter, so the request's AbortSignal is made only for handlers that read it.
 * Every instance has every field (undefined where it does not apply) so handlers see one shape.
 */
class HandlerContext implements ResourceInputContext {
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly auth: AuthInfo | undefined;
  readonly request: RequestContext;
  readonly requestState: string | undefined;
  readonly inputResponses: InputResponses | undefined;
  readonly uri: string;

  constructor(request: RequestContext, params: RoundParams | undefined, uri: string | undefined) {
    this.requestId = request.requestId;
    this.protocolVersion = request.protocolVersion;
    this.clientCapabilities = request.clientCapabilities;
    this.clientInfo = request.clientInfo;
    this.auth = request.auth;
    this.request = request;
    this.requestState = params?.requestState;
    this.inputResponses = params?.inputResponses;
    this.uri = uri as string;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  // Arrow fields rather than methods, so a handler may destructure them: `({ log }) => ...`.
  readonly sendProgress = (progress: number, total?: number, message?: string): Promise<void> =>
    this.request.sendProgress(progress, total, message);

  readonly log = (level: LoggingLevel, data: unknown, logger?: string): Promise<void> =>
    this.request.log(level, data, logger);
}

interface RoundParams {
  requestState?: string;
  inputResponses?: InputResponses;
}

export function mcpContext(request: RequestContext): McpContext {
  return new HandlerContext(request, undefined, undefined);
}

/** A context for a static resource: it reads the URI but takes no part in rounds. */
export function resourceContext(request: RequestContext, uri: string): ResourceContext {
  return new HandlerContext(request, undefined, uri);
}

export function inputContext(request: RequestContext, params: RoundParams): InputContext {
  return new HandlerContext(request, params, undefined);
}

/** A context for a resource template, which reads the URI and may ask. */
export function resourceInputContext(
  request: RequestContext,
  params: RoundParams,
  uri: string,
): ResourceInputContext {
  return new HandlerContext(request, params, uri);
}
