import type { AuthInfo } from "../auth-info.js";
import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import { notification } from "../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../protocol/schemas/common.js";
import type { RequestMeta } from "../protocol/schemas/envelope.js";
import { NotificationMethod } from "../protocol/schemas/notifications.js";
import { META } from "../protocol/versions.js";
import { type AbortSource, signalOf } from "./request-abort.js";

/** Where a transport sends the notifications that belong to one request. */
export type NotificationSink = (message: JsonRpcNotification) => void | Promise<void>;

export interface TransportInfo {
  kind: "http" | "stdio" | "memory";
  /** Request headers, lower-cased, on HTTP. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
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

export function createRequestContext(init: ContextInit): RequestContext {
  const { meta, sink, signal: abort } = init;
  const notify = async (message: JsonRpcNotification): Promise<void> => {
    // Nothing may follow a cancelled request.
    if (sink && !abort.aborted) await sink(message);
  };
  const requestedLevel = meta[META.logLevel];
  const progressToken = meta.progressToken;
  return {
    requestId: init.requestId,
    method: init.method,
    protocolVersion: meta[META.protocolVersion],
    clientCapabilities: meta[META.clientCapabilities],
    clientInfo: meta[META.clientInfo],
    meta,
    get signal() {
      return signalOf(abort);
    },
    auth: init.auth,
    transport: init.transport,
    notify,
    async sendProgress(progress, total, message) {
      if (progressToken === undefined) return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await notify(notification(NotificationMethod.progress, params));
    },
    async log(level, data, logger) {
      if (requestedLevel === undefined || SEVERITY[level] < SEVERITY[requestedLevel]) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      await notify(notification(NotificationMethod.message, params));
    },
  };
}
