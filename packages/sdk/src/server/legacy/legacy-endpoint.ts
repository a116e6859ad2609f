import { ErrorCode, McpError } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/is-record.js";
import {
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  notification,
  resultResponse,
} from "../../protocol/jsonrpc.js";
import { describeError } from "../../protocol/logger.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { CancelledParamsSchema, NotificationMethod } from "../../protocol/schemas/notifications.js";
import { ATTR } from "../../protocol/telemetry/names.js";
import type { AuthInfo } from "../auth-info.js";
import type { TransportInfo } from "../context.js";
import type { Server } from "../server.js";
import { bridgeRequest } from "./bridge.js";
import { FleetSessions } from "./fleet-sessions.js";
import {
  initializeResult,
  isSessionMethod,
  negotiateVersion,
  readInitializeParams,
  serveSessionMethod,
} from "./legacy-methods.js";
import { askingInstanceOf, newAskingInstance } from "./legacy-question.js";
import { LiveSessions, principalOf } from "./live-sessions.js";
import type { ResolvedLegacyOptions } from "./options.js";
import type { ClientAnswer } from "./outbound-requests.js";
import { LegacySession, type MessageSender } from "./session.js";

/** How one legacy request reached the server, and how messages related to it can reach the client. */
export interface LegacyExchange {
  auth: AuthInfo | undefined;
  transport: TransportInfo;
  /** Where notifications and server-to-client requests for this request go; undefined when nowhere. */
  channel: MessageSender | undefined;
  /** Why no channel exists, as the client must read it (what to do instead). */
  noChannel: string;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/**
 * The 2025-era side of one transport: it opens sessions at `initialize`, serves the session-only
 * methods, bridges input-required results into real client requests, routes the client's answers and
 * cancellations, and delivers what the server announces to the sessions that want it.
 */
export class LegacyEndpoint {
  readonly server: Server;
  readonly options: ResolvedLegacyOptions;
  readonly registry: LiveSessions;
  /** This endpoint, as the ids of the questions its sessions ask name it. */
  readonly #instance = newAskingInstance();
  readonly #fleet: FleetSessions | undefined;
  readonly #detach: () => void;

  /** `adopt` prepares a session this instance serves although another instance opened it. */
  constructor(
    server: Server,
    options: ResolvedLegacyOptions,
    adopt: (session: LegacySession) => void = () => {},
  ) {
    this.server = server;
    this.options = options;
    this.registry = new LiveSessions({
      idleMs: options.sessionIdleMs,
      maxPerPrincipal: options.maxSessionsPerPrincipal,
      now: options.now,
    });
    this.#fleet = options.sessions
      ? new FleetSessions({
          instance: this.#instance,
          shared: options.sessions,
          bus: server.bus,
          local: this.registry,
          limits: () => ({
            idleMs: options.sessionIdleMs,
            maxPerPrincipal: options.maxSessionsPerPrincipal,
            now: options.now(),
          }),
          adopt,
          onError: (what, error) =>
            server.logger.error(
              { ...describeError(error) },
              `${what} did not reach the other instances: the session registry or bus is unavailable (check that Redis is reachable)`,
            ),
          onIgnoredAnswer: () => this.#ignoredAnswer(),
        })
      : undefined;
    this.#detach = server.addBroadcastListener({
      notify: (method, params) => this.#broadcast(method, params),
      close: () => this.registry.close(),
    });
  }

  /** `initialize`: a new session on the version both sides speak. Throws McpError on bad params or the cap. */
  open(
    request: JsonRpcRequest,
    auth: AuthInfo | undefined,
    transport: TransportInfo,
  ): Promise<{ session: LegacySession; response: JsonRpcResponse }> {
    const requested = request.params?.protocolVersion;
    const protocolVersion = negotiateVersion(typeof requested === "string" ? requested : "");
    return this.server.telemetry.observeSession(
      request,
      { legacy: { protocolVersion }, transport },
      () => this.#open(request, auth),
      ({ session, response }) => ({
        answer: { message: response },
        late: transport.kind === "http" ? { [ATTR.mcpSessionId]: session.id } : {},
      }),
    );
  }

  async #open(
    request: JsonRpcRequest,
    auth: AuthInfo | undefined,
  ): Promise<{ session: LegacySession; response: JsonRpcResponse }> {
    const params = readInitializeParams(request.params);
    const protocolVersion = negotiateVersion(params.protocolVersion);
    const session = new LegacySession({
      protocolVersion,
      clientCapabilities: params.capabilities,
      clientInfo: params.clientInfo,
      principal: principalOf(auth),
      now: this.options.now(),
      instance: this.#instance,
    });
    this.registry.add(session);
    try {
      await this.#fleet?.create(session);
    } catch (error) {
      session.close();
      throw error;
    }
    return {
      session,
      response: resultResponse(request.id, { ...initializeResult(this.server, protocolVersion) }),
    };
  }

  /** The session `id` names, when it is live and belongs to the caller. */
  async find(id: string, auth: AuthInfo | undefined): Promise<LegacySession | undefined> {
    const principal = principalOf(auth);
    const session = this.#fleet ? await this.#fleet.find(id, principal) : this.registry.get(id, principal);
    session?.touch(this.options.now());
    return session;
  }

  /** Serves one request on a session; undefined when it was cancelled (no response is sent then). */
  async serve(
    session: LegacySession,
    request: JsonRpcRequest,
    exchange: LegacyExchange,
  ): Promise<JsonRpcResponse | undefined> {
    const controller = session.begin(request.id);
    if (!controller) {
      return errorResponse(
        request.id,
        McpError.invalidRequest(
          `Request id ${JSON.stringify(request.id)} is already in use on this session`,
        ).toJSON(),
      );
    }
    try {
      if (request.method === LegacyMethod.initialize) {
        throw McpError.invalidRequest(
          "This session is already initialized: send initialize without Mcp-Session-Id to open a new one",
        );
      }
      const via = { legacy: session, transport: exchange.transport };
      if (isSessionMethod(request.method)) {
        const own = await this.server.telemetry.observeSession(
          request,
          via,
          async () => {
            const result = serveSessionMethod(this.server, session, request.method, request.params) ?? {};
            // ping changes nothing; setLevel and (un)subscribe change what every instance must know.
            if (request.method !== LegacyMethod.ping) await this.#fleet?.share(session);
            return result;
          },
          (result) => ({ answer: { message: { result } } }),
        );
        return resultResponse(request.id, own);
      }
      const { signal } = controller;
      return await bridgeRequest({
        request,
        session,
        channel: exchange.channel,
        noChannel: exchange.noChannel,
        signal,
        ask: (question, send) =>
          this.server.telemetry.ask({ ...question, callerMeta: metaOf(request), via }, send),
        maxRounds: this.options.maxRounds,
        timeoutMs: this.options.timeoutMs,
        handle: (round) =>
          this.server.handleRequest(round, {
            legacy: session,
            signal,
            auth: exchange.auth,
            ...(exchange.channel ? { notify: exchange.channel } : {}),
            transport: exchange.transport,
          }),
      });
    } catch (error) {
      if (error instanceof McpError) return errorResponse(request.id, error.toJSON());
      this.server.logger.error({ method: request.method, ...describeError(error) }, "legacy request failed");
      return errorResponse(request.id, McpError.internal().toJSON());
    } finally {
      session.end(request.id, controller);
      session.touch(this.options.now());
    }
  }

  /** A notification from the client: initialized, cancelled; anything else has no effect. */
  async notify(session: LegacySession, message: JsonRpcNotification): Promise<void> {
    if (message.method === LegacyMethod.initialized) {
      session.initialized = true;
      await this.#fleet?.share(session);
    } else if (message.method === NotificationMethod.cancelled) {
      const params = CancelledParamsSchema.safeParse(message.params);
      if (params.success && params.data.requestId !== undefined) {
        session.cancel(params.data.requestId);
        this.#fleet?.forwardCancel(session.id, params.data.requestId);
      }
    }
  }

  /**
   * A response from the client: it settles the question of this session that carries its id, here or
   * on the instance that asked it (its id names that one), or it is ignored and changes nothing.
   */
  answer(session: LegacySession, message: Record<string, unknown>): void {
    const { id } = message;
    if (!isRequestId(id)) {
      this.#ignoredAnswer();
      return;
    }
    const answer: ClientAnswer =
      "error" in message && typeof message.error === "object" && message.error !== null
        ? { error: normalizedError(message.error as Record<string, unknown>) }
        : { result: message.result };
    if (session.outbound.settle(id, answer)) return;
    const asker = askingInstanceOf(id);
    if (this.#fleet && asker !== undefined && asker !== this.#instance) {
      this.#fleet.forwardAnswer(asker, session.id, id, answer);
    } else {
      this.#ignoredAnswer();
    }
  }

  /** DELETE: the session ends on every instance. */
  async end(session: LegacySession): Promise<void> {
    if (this.#fleet) await this.#fleet.end(session);
    else this.registry.remove(session.id);
  }

  close(): void {
    this.#fleet?.close();
    this.#detach();
    this.registry.close();
  }

  /** Only the fact is logged: an answer may hold what the user typed, and its id lets one answer. */
  #ignoredAnswer(): void {
    this.server.logger.warn(
      {},
      "ignored a response to no request this server is waiting on: it names no question of its session",
    );
  }

  #broadcast(method: string, params: Record<string, unknown> | undefined): void {
    const message = notification(method, params);
    const uri = method === NotificationMethod.resourceUpdated ? params?.uri : undefined;
    for (const session of this.registry.sessions()) {
      if (typeof uri === "string" && !session.subscriptions.has(uri)) continue;
      session.sendStandalone(message);
    }
  }
}

function normalizedError(error: Record<string, unknown>): { code: number; message: string } {
  return {
    code: typeof error.code === "number" ? error.code : ErrorCode.InternalError,
    message: typeof error.message === "string" ? error.message : "no message",
  };
}

/** The `_meta` of a client's request, where its trace context rides. */
function metaOf(request: JsonRpcRequest): Readonly<Record<string, unknown>> | undefined {
  const meta = request.params?._meta;
  return isRecord(meta) ? meta : undefined;
}
