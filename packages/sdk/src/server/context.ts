import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import { notification } from "../protocol/jsonrpc.js";
import { type AbortSource, signalOf } from "../protocol/request-abort.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../protocol/schemas/common.js";
import type { RequestMeta } from "../protocol/schemas/envelope.js";
import { NotificationMethod } from "../protocol/schemas/notifications.js";
import { META } from "../protocol/versions.js";
import type { AuthInfo } from "./auth-info.js";

/** Where a transport sends the notifications that belong to one request. */
export type NotificationSink = (message: JsonRpcNotification) => void | Promise<void>;

export interface TransportInfo {
  kind: "http" | "stdio" | "memory";
  /** Request headers, lower-cased, on HTTP. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The peer on HTTP: the socket's remote end, or with `mcpFastify` the address Fastify's `trustProxy`
   * believes (then without a port when a proxy named it). For telemetry and logs, never for access.
   */
  readonly peer?: PeerAddress | undefined;
  /** The HTTP version the request came in on (`1.1`, `2`), when the transport knows it. */
  readonly httpVersion?: string | undefined;
}

export interface PeerAddress {
  readonly address: string;
  readonly port?: number | undefined;
}

/** Everything a handler may know about the request it serves. Nothing here outlives the request. */
export interface RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly protocolVersion: string;
  /** This request's client capabilities; a retry may declare different ones. */
  readonly clientCapabilities: ClientCapabilities;
  /** Self-reported by the client: for display only, never for security decisions. */
  readonly clientInfo: Implementation | undefined;
  readonly meta: RequestMeta;
  /** Aborted when the client disconnects or cancels. */
  readonly signal: AbortSignal;
  /** The validated access token, when the transport authenticated the request. */
  readonly auth: AuthInfo | undefined;
  readonly transport: TransportInfo;
  /** Reports progress when the request asked for it with a progressToken; otherwise does nothing. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message when the request asked for this level or a more verbose one. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Sends any notification on this request's stream. */
  notify(message: JsonRpcNotification): Promise<void>;
}

const SEVERITY: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

export interface ContextInit {
  requestId: RequestId;
  method: string;
  meta: RequestMeta;
  /** A RequestAbort defers making the AbortSignal until a handler reads `signal`. */
  signal: AbortSource;
  auth: AuthInfo | undefined;
  transport: TransportInfo;
  sink: NotificationSink | undefined;
}

/**
 * A class rather than an object literal: a literal with a getter gets its own hidden class, whose
 * accessor keeps this context, and through the transport's sink the whole HTTP exchange, alive
 * until the next full GC. Under load that promoted every request to the old generation.
 */
class ServerRequestContext implements RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly meta: RequestMeta;
  readonly auth: AuthInfo | undefined;
  readonly transport: TransportInfo;
  readonly #abort: AbortSource;
  readonly #sink: NotificationSink | undefined;

  constructor(init: ContextInit) {
    const { meta } = init;
    this.requestId = init.requestId;
    this.method = init.method;
    this.protocolVersion = meta[META.protocolVersion];
    this.clientCapabilities = meta[META.clientCapabilities];
    this.clientInfo = meta[META.clientInfo];
    this.meta = meta;
    this.auth = init.auth;
    this.transport = init.transport;
    this.#abort = init.signal;
    this.#sink = init.sink;
  }

  get signal(): AbortSignal {
    return signalOf(this.#abort);
  }

  // Arrow fields rather than methods, so a handler may destructure them: `({ sendProgress }) => ...`.
  readonly notify = async (message: JsonRpcNotification): Promise<void> => {
    // Nothing may follow a cancelled request.
    if (this.#sink && !this.#abort.aborted) await this.#sink(message);
  };

  readonly sendProgress = async (progress: number, total?: number, message?: string): Promise<void> => {
    const progressToken = this.meta.progressToken;
    if (progressToken === undefined) return;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.notify(notification(NotificationMethod.progress, params));
  };

  readonly log = async (level: LoggingLevel, data: unknown, logger?: string): Promise<void> => {
    const requestedLevel = this.meta[META.logLevel];
    if (requestedLevel === undefined || SEVERITY[level] < SEVERITY[requestedLevel]) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.notify(notification(NotificationMethod.message, params));
  };
}

export function createRequestContext(init: ContextInit): RequestContext {
  return new ServerRequestContext(init);
}
