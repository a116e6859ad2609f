import { ErrorCode, McpError } from "../../protocol/errors.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../../protocol/schemas/common.js";
import { JSONRPC_VERSION } from "../../protocol/versions.js";
import type { CallOptions } from "../call-options.js";
import type { Negotiation } from "../era/negotiation.js";
import type { NotificationRouter } from "../notification-router.js";
import { type RequestTimeout, requestTimeout, type Untimed, withRequestTimeout } from "../request-timeout.js";
import type { ClientTelemetry } from "../telemetry/client-telemetry.js";
import type { ToolHeaderRegistry } from "../tool-headers.js";
import type { ClientTransport } from "../transport/client-transport.js";
import { eraFallback } from "./era-fallback.js";
import { type RecoveryContext, recoverOnce } from "./recovery.js";

/** What the requester sends with and through. */
export interface RequesterParts {
  readonly transport: ClientTransport;
  readonly negotiation: Negotiation;
  readonly notifications: NotificationRouter;
  readonly tools: ToolHeaderRegistry;
  readonly info: Implementation;
  /** What the client declares, read as each request goes out (callbacks may be registered late). */
  capabilities(): ClientCapabilities;
  readonly logLevel: LoggingLevel | undefined;
  readonly requestTimeoutMs: number | undefined;
  relistTools(signal: AbortSignal | undefined): Promise<unknown>;
  readonly telemetry: ClientTelemetry;
}

/**
 * Sends JSON-RPC requests (a fresh id each attempt) in the era the negotiation settled, and returns
 * their results. A failed attempt goes again once a recovery fixes its cause: the era's own ones, and
 * the fallback to a session when the modern era was only a guess; each kind at most once per request.
 */
export class Requester {
  readonly #parts: RequesterParts;
  readonly #context: RecoveryContext;
  #nextId = 1;
  /**
   * The clocks of the requests in flight. A 2025-era server asks its questions during a call, and a
   * person may take minutes to answer: while a callback answers one, no request's bound runs.
   */
  readonly #clocks = new Set<Untimed>();

  constructor(parts: RequesterParts) {
    this.#parts = parts;
    this.#context = {
      negotiation: parts.negotiation,
      transport: parts.transport,
      relistTools: (signal) => parts.relistTools(signal),
    };
  }

  send(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    timeout: RequestTimeout = requestTimeout(
      "requestTimeoutMs",
      options.requestTimeoutMs ?? this.#parts.requestTimeoutMs,
    ),
    sent?: (id: RequestId) => void,
  ): Promise<Record<string, unknown>> {
    const { transport, negotiation, telemetry } = this.#parts;
    const outgoing = {
      method,
      params,
      meta: options.meta,
      transport,
      protocolVersion: () => negotiation.protocolVersion,
    };
    return telemetry.observe(outgoing, (meta, traced) =>
      this.#send(method, params, { ...options, meta }, timeout, (id) => {
        traced(id);
        sent?.(id);
      }),
    );
  }

  async #send(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    timeout: RequestTimeout,
    sent: (id: RequestId) => void,
  ): Promise<Record<string, unknown>> {
    const { transport, negotiation, notifications } = this.#parts;
    const token = notifications.open(options.onProgress);
    const used = new Set<string>();
    try {
      while (true) {
        const fixing = negotiation.era.beforeSend(this.#context, options.signal);
        if (fixing) await fixing;
        const { era, generation, unconfirmed } = negotiation;
        const request: JsonRpcRequest = {
          jsonrpc: JSONRPC_VERSION,
          id: this.#nextId++,
          method,
          params: era.wireParams(params, {
            extra: options.meta,
            progressToken: token,
            protocolVersion: negotiation.protocolVersion,
            capabilities: this.#parts.capabilities(),
            clientInfo: this.#parts.info,
            logLevel: this.#parts.logLevel,
          }),
        };
        const headers = era.paramHeaders ? this.#paramHeaders(method, params) : undefined;
        sent(request.id);
        try {
          const response = await withRequestTimeout(timeout, method, options.signal, (signal, untimed) => {
            this.#clocks.add(untimed);
            return transport
              .request(request, { signal, headers, untimed })
              .finally(() => this.#clocks.delete(untimed));
          });
          if ("error" in response) throw toMcpError(response.error);
          negotiation.confirm();
          return response.result;
        } catch (error) {
          const failed = {
            error,
            method,
            generation,
            unconfirmed,
            sentParamHeaders: headers !== undefined,
            signal: options.signal,
          };
          const recoveries = [eraFallback, ...negotiation.era.recoveries];
          if (!(await recoverOnce(recoveries, failed, this.#context, used))) throw error;
        }
      }
    } finally {
      notifications.close(token);
    }
  }

  /** Runs work with every in-flight request's clock stopped. */
  untimed<T>(work: () => Promise<T>): Promise<T> {
    let run = work;
    for (const untimed of this.#clocks) {
      const inner = run;
      run = () => untimed(inner);
    }
    return run();
  }

  /** A tool call over HTTP repeats the arguments its tool annotates in Mcp-Param-* headers. */
  #paramHeaders(method: string, params: Record<string, unknown>): Record<string, string> | undefined {
    if (method !== "tools/call" || this.#parts.transport.kind !== "http") return undefined;
    const args = params.arguments as Record<string, unknown> | undefined;
    return this.#parts.tools.headersFor(String(params.name), args);
  }
}

function toMcpError(error: unknown): McpError {
  const value = error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  const code = typeof value?.code === "number" ? value.code : ErrorCode.InternalError;
  const message = typeof value?.message === "string" ? value.message : "The server sent a malformed error";
  return new McpError(code, message, value?.data);
}
