import { isLegacyProtocolVersion, requiresVersionHeader } from "../../protocol/eras.js";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { HEADER, headerText } from "../../protocol/http-headers.js";
import { isRecord } from "../../protocol/is-record.js";
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { describeError } from "../../protocol/logger.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { META } from "../../protocol/versions.js";
import type { AuthInfo } from "../auth-info.js";
import type { Server } from "../server.js";
import type { Accepted } from "../transport/accept-negotiation.js";
import { HttpError } from "../transport/http-errors.js";
import { httpTransportInfo } from "../transport/http-peer.js";
import { inboundOrRefuse, sendJson } from "../transport/json-response.js";
import type { HeaderRecord, RequestHead } from "../transport/request-head.js";
import type { ResponseWriter } from "../transport/response-writer.js";
import type { HttpEra } from "../unenveloped-era.js";
import { streamOfEvent } from "./event-store.js";
import { LegacyEndpoint } from "./legacy-endpoint.js";
import { SessionLimitExceeded } from "./live-sessions.js";
import type { ResolvedLegacyOptions } from "./options.js";
import type { LegacySession } from "./session.js";
import { SessionStream } from "./session-stream.js";

const NEEDS_SSE =
  "This tool needs input from the user or the client, which a 2025-era client can only be asked over an SSE stream: send Accept: application/json, text/event-stream on this request";

/**
 * Whether a POSTed message belongs to the 2025 era: a request with the modern `_meta` envelope never
 * does; `initialize`, anything on an Mcp-Session-Id and anything whose MCP-Protocol-Version header
 * names a 2025 version does. Reads a few properties only, so the modern path stays as fast.
 */
export function isLegacyPost(headers: HeaderRecord, value: unknown): boolean {
  if (!isRecord(value)) return false;
  const params = value.params;
  const meta = isRecord(params) ? params._meta : undefined;
  if (isRecord(meta) && typeof meta[META.protocolVersion] === "string") return false;
  if (headers[HEADER.sessionId] !== undefined) return true;
  if (value.method === LegacyMethod.initialize) return true;
  const version = headerText(headers, HEADER.protocolVersion);
  return version !== undefined && isLegacyProtocolVersion(version);
}

/** A stream's send or end that failed was reported by the stream itself; the request just ends. */
function reportedByTheStream(): void {}

function tooManyRequestStreams(limit: number): McpError {
  return new McpError(
    ErrorCode.InvalidRequest,
    `Too many requests open on this session: it already has ${limit} waiting for their answers, the most this server allows; wait for one to finish, or cancel one with notifications/cancelled, before sending another`,
    { reason: "too_many_request_streams", limit },
  );
}

function refusal(status: number, message: string): HttpError {
  return new HttpError(status, message, { rpcCode: ErrorCode.InvalidRequest });
}

const SESSIONS_UNAVAILABLE =
  "Service Unavailable: this server keeps 2025-era sessions in a shared store it cannot reach right now; retry shortly";

/**
 * A shared session registry that cannot answer is an outage the client waits out, not a fault of its
 * request: 503 with Retry-After, and the cause in the log only.
 */
async function orUnavailable<T>(server: Server, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof McpError || error instanceof HttpError) throw error;
    server.logger.error(
      { ...describeError(error) },
      "the session registry is unavailable (check that Redis is reachable)",
    );
    throw new HttpError(503, SESSIONS_UNAVAILABLE, {
      headers: { "retry-after": "1" },
      rpcCode: ErrorCode.InternalError,
    });
  }
}

/**
 * Streamable HTTP for 2025-era sessions, on the endpoint that serves 2026-07-28: POST (JSON or SSE
 * answers, on which the server's own requests for that request travel), GET (the session's stream
 * for messages not tied to a request, and resumption with Last-Event-ID) and DELETE (ends a session).
 */
export class LegacyHttp implements HttpEra {
  readonly endpoint: LegacyEndpoint;
  readonly #options: ResolvedLegacyOptions;
  /** Streams per session, kept until the session ends so a lost stream can still be resumed. */
  readonly #streams = new Map<string, Map<string, SessionStream>>();
  #nextStream = 1;

  constructor(server: Server, options: ResolvedLegacyOptions) {
    this.endpoint = new LegacyEndpoint(server, options, (session) => this.#adopt(session));
    this.#options = options;
  }

  claims(headers: HeaderRecord, value: unknown): boolean {
    return isLegacyPost(headers, value);
  }

  async post(
    req: RequestHead,
    res: ResponseWriter,
    value: unknown,
    auth: AuthInfo | undefined,
    accept: Accepted,
  ): Promise<void> {
    if (isRecord(value) && typeof value.method !== "string" && ("result" in value || "error" in value)) {
      const session = await this.#session(req, auth);
      this.endpoint.answer(session, value);
      return sendJson(res, 202, undefined);
    }
    const inbound = inboundOrRefuse(res, value);
    if (inbound === undefined) return;
    if (inbound.kind === "request" && inbound.message.method === LegacyMethod.initialize) {
      return this.#initialize(req, res, inbound.message, auth, accept);
    }
    const session = await this.#session(req, auth);
    if (inbound.kind === "notification") {
      await this.endpoint.notify(session, inbound.message);
      return sendJson(res, 202, undefined);
    }
    const limit = this.#options.maxRequestStreamsPerSession;
    const admitted = session.openRequestStream(limit);
    if (!admitted) {
      return sendJson(res, 429, errorResponse(inbound.message.id, tooManyRequestStreams(limit).toJSON()));
    }
    try {
      await this.#serve(req, res, session, inbound.message, auth, accept);
    } finally {
      admitted();
    }
  }

  async get(
    req: RequestHead,
    res: ResponseWriter,
    auth: AuthInfo | undefined,
    accept: Accepted,
  ): Promise<void> {
    if (!accept.sse) throw refusal(406, "Not Acceptable: the GET stream is text/event-stream; accept it");
    const session = await this.#session(req, auth);
    const lastEventId = headerText(req.headers, HEADER.lastEventId);
    if (lastEventId !== undefined) return this.#resume(res, session, lastEventId);
    const standalone = this.#standalone(session);
    if (standalone.attached) {
      throw refusal(409, "Conflict: this session already has a GET stream open; use that one");
    }
    standalone.attach(res, session.holdOpen());
  }

  async delete(req: RequestHead, res: ResponseWriter, auth: AuthInfo | undefined): Promise<void> {
    const session = await this.#session(req, auth);
    await this.endpoint.end(session);
    sendJson(res, 200, undefined);
  }

  close(): void {
    this.endpoint.close();
  }

  async #initialize(
    req: RequestHead,
    res: ResponseWriter,
    request: JsonRpcRequest,
    auth: AuthInfo | undefined,
    accept: Accepted,
  ): Promise<void> {
    let opened: Awaited<ReturnType<LegacyEndpoint["open"]>>;
    try {
      opened = await orUnavailable(this.endpoint.server, () =>
        this.endpoint.open(request, auth, httpTransportInfo(req)),
      );
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      sendJson(
        res,
        error instanceof SessionLimitExceeded ? 429 : 400,
        errorResponse(request.id, error.toJSON()),
      );
      return;
    }
    const { session, response } = opened;
    this.#adopt(session);
    const headers = { [HEADER.sessionId]: session.id };
    if (!accept.json) {
      const stream = this.#newStream(session);
      stream.attach(res, undefined, headers);
      await stream.end(response).catch(reportedByTheStream);
      return;
    }
    sendJson(res, 200, response, headers);
  }

  /**
   * One request on its session. Its SSE stream is made and given this response on its first message,
   * and only then: once the client has dropped the response, the stream's events are recorded for a
   * resume with Last-Event-ID and never written to that response again.
   */
  async #serve(
    req: RequestHead,
    res: ResponseWriter,
    session: LegacySession,
    request: JsonRpcRequest,
    auth: AuthInfo | undefined,
    accept: Accepted,
  ): Promise<void> {
    let stream: SessionStream | undefined;
    const open = (): SessionStream => {
      if (!stream) {
        stream = this.#newStream(session);
        stream.attach(res, session.holdOpen());
      }
      return stream;
    };
    const response = await this.endpoint.serve(session, request, {
      auth,
      transport: httpTransportInfo(req),
      channel: accept.sse ? (message: JsonRpcMessage) => open().send(message) : undefined,
      noChannel: NEEDS_SSE,
    });
    if (response === undefined) {
      // Cancelled: no response follows, only the end of whatever answer was started.
      if (stream) return stream.close();
      return sendJson(res, 202, undefined);
    }
    if (stream || !accept.json) return open().end(response).catch(reportedByTheStream);
    sendJson(res, 200, response);
  }

  /** Where a session's messages not tied to a request go on this instance, and what its end frees. */
  #adopt(session: LegacySession): void {
    const standalone = this.#standalone(session);
    session.setStandalone((message) => standalone.send(message));
    session.onClose(() => this.#forgetStreams(session));
  }

  /**
   * The session a request names, checked as 2025-11-25 requires: the header is present (else 400),
   * the session is live and the caller's (else 404), and MCP-Protocol-Version names its version.
   */
  async #session(req: RequestHead, auth: AuthInfo | undefined): Promise<LegacySession> {
    const id = headerText(req.headers, HEADER.sessionId);
    if (id === undefined) {
      throw refusal(400, "Bad Request: no Mcp-Session-Id header; send initialize first to open a session");
    }
    const session = await orUnavailable(this.endpoint.server, () => this.endpoint.find(id, auth));
    if (!session) {
      throw refusal(404, "Session not found: it ended or expired; send initialize to open a new session");
    }
    const version = headerText(req.headers, HEADER.protocolVersion);
    if (version === undefined) {
      if (requiresVersionHeader(session.protocolVersion)) {
        throw refusal(
          400,
          `Bad Request: the MCP-Protocol-Version header is required on this session; send ${session.protocolVersion}`,
        );
      }
    } else if (version !== session.protocolVersion) {
      throw refusal(
        400,
        `Bad Request: MCP-Protocol-Version '${version}' is not this session's version; send ${session.protocolVersion}`,
      );
    }
    return session;
  }

  async #resume(res: ResponseWriter, session: LegacySession, lastEventId: string): Promise<void> {
    const streamId = streamOfEvent(lastEventId);
    // An id from another session's stream is as unknown here as one never minted or no longer kept.
    const stream = streamId === undefined ? undefined : this.#streams.get(session.id)?.get(streamId);
    if (!stream || !(await stream.resume(res, lastEventId, session.holdOpen()))) {
      throw refusal(
        404,
        "Not Found: Last-Event-ID names no event this session still keeps; open a new GET stream",
      );
    }
  }

  #standalone(session: LegacySession): SessionStream {
    const streams = this.#streamsOf(session);
    const id = `${session.id}.get`;
    let stream = streams.get(id);
    if (!stream) {
      stream = new SessionStream(id, this.#options.eventStore, this.#reportFault);
      streams.set(id, stream);
    }
    return stream;
  }

  #newStream(session: LegacySession): SessionStream {
    const stream = new SessionStream(
      `${session.id}.${this.#nextStream++}`,
      this.#options.eventStore,
      this.#reportFault,
    );
    this.#streamsOf(session).set(stream.id, stream);
    return stream;
  }

  #streamsOf(session: LegacySession): Map<string, SessionStream> {
    let streams = this.#streams.get(session.id);
    if (!streams) {
      streams = new Map();
      this.#streams.set(session.id, streams);
    }
    return streams;
  }

  #forgetStreams(session: LegacySession): void {
    const streams = this.#streams.get(session.id);
    this.#streams.delete(session.id);
    for (const stream of streams?.values() ?? []) stream.discard();
  }

  /** Only what failed and why: the session's id and the events' content stay out of the log. */
  readonly #reportFault = (what: string, error: unknown): void => {
    this.endpoint.server.logger.error(
      { ...describeError(error) },
      `${what}: the event store failed (check that it is reachable)`,
    );
  };
}
