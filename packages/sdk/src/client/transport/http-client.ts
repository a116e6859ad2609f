import { parseBearerChallenge } from "../../protocol/auth/challenge.js";
import { ErrorCode } from "../../protocol/errors.js";
import { encodeHeaderValue, HEADER } from "../../protocol/http-headers.js";
import { isRecord } from "../../protocol/is-record.js";
import {
  classifyServerMessage,
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type ServerMessage,
} from "../../protocol/jsonrpc.js";
import { describeError, type Logger, stderrLogger } from "../../protocol/logger.js";
import { requestName } from "../../protocol/request-name.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { META } from "../../protocol/versions.js";
import type { AuthChallenge, ClientAuthProvider } from "../auth-provider.js";
import {
  type ClientTransport,
  cancelledNotification,
  type ServerRequestHandler,
  type ServerRequestOrigin,
  type TransportRequestOptions,
} from "./client-transport.js";
import { nameConnectionFailures } from "./connection-failure.js";
import {
  ConnectionFailedError,
  HttpStatusError,
  RedirectRefusedError,
  ResponseStreamClosedError,
  ResponseTooLargeError,
  SessionExpiredError,
} from "./http-errors.js";
import {
  HttpSession,
  parseJson,
  readServerStream,
  type SessionWire,
  type StreamCursor,
} from "./http-session.js";
import { refuseRedirects } from "./refuse-redirects.js";
import { type ResponseLimits, readBodyText, responseLimits } from "./response-limits.js";

export {
  ConnectionFailedError,
  HttpStatusError,
  RedirectRefusedError,
  ResponseStreamClosedError,
  ResponseTooLargeError,
  SessionExpiredError,
};

type HeaderSource = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

export interface HttpClientOptions extends Partial<ResponseLimits> {
  /**
   * Replaces the global fetch (a proxy-aware one, or one that records requests in tests). It is asked
   * not to follow redirects, and a redirect it answers with fails the request (RedirectRefusedError).
   */
  fetch?: typeof fetch;
  /** Headers sent on every POST, such as Authorization; a function is called per request. */
  headers?: HeaderSource;
  /**
   * Credentials per request: asked for the Authorization header before each POST, and handed the
   * server's 401 or 403 insufficient_scope challenge (`oauthClientProvider` from `@roundtrip/sdk/oauth-client`).
   * Its header replaces an Authorization from `headers`.
   */
  auth?: ClientAuthProvider;
  /** Where a 2025-era session's background stream reports trouble. */
  logger?: Logger;
}

/**
 * Streamable HTTP, client side, over fetch: one POST per request, answered by either one JSON body or
 * an SSE stream of messages ending in the response. Aborting the signal closes the request, which is
 * how HTTP cancels in 2026-07-28; on a 2025-era session it also sends notifications/cancelled. 2026-07-28 requests carry the request metadata headers; once a 2025-era session
 * starts, they carry its id and version instead, server requests on any stream are answered, and a
 * response stream cut before its answer is resumed.
 */
export class HttpClientTransport implements ClientTransport {
  readonly kind = "http";
  readonly url: URL;
  onNotification?: (notification: JsonRpcNotification) => void;
  onRequest?: ServerRequestHandler;
  readonly #fetch: typeof fetch;
  readonly #headers: HeaderSource | undefined;
  readonly #auth: ClientAuthProvider | undefined;
  readonly #logger: Logger;
  readonly #limits: ResponseLimits;
  #session: HttpSession | undefined;
  /** The Mcp-Session-Id of the last initialize response, until startSession adopts it. */
  #offeredSessionId: string | undefined;

  constructor(url: string | URL, options: HttpClientOptions = {}) {
    this.url = new URL(url);
    this.#fetch = nameConnectionFailures(refuseRedirects(options.fetch ?? globalThis.fetch));
    this.#limits = responseLimits(options);
    this.#headers = options.headers;
    this.#auth = options.auth;
    this.#logger = options.logger ?? stderrLogger;
  }

  /** The 2025-era session's id, once the server assigned one. */
  get sessionId(): string | undefined {
    return this.#session?.id;
  }

  async request(request: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const session = this.#session;
    const stopCancelling = session
      ? cancelOnAbort(session, request, options.signal, this.#logger)
      : undefined;
    try {
      return await this.#request(request, session, options);
    } finally {
      stopCancelling?.();
    }
  }

  async #request(
    request: JsonRpcRequest,
    session: HttpSession | undefined,
    options: TransportRequestOptions,
  ): Promise<JsonRpcResponse> {
    // The body is a string, so a refused request can be sent again unchanged once credentials improve.
    const body = JSON.stringify(request);
    const untimed = options.untimed ?? ((work) => work());
    for (let attempt = 1; ; attempt++) {
      const headers = await untimed(() => this.#requestHeaders(request, options.headers, options.signal));
      const response = await this.#fetch(this.url, {
        method: "POST",
        headers,
        body,
        signal: options.signal,
      });
      const status = response.status;
      const auth = this.#auth;
      if (auth && (status === 401 || status === 403)) {
        const wwwAuthenticate = response.headers.get("www-authenticate");
        if (status === 401 || parseBearerChallenge(wwwAuthenticate)?.error === "insufficient_scope") {
          const text = await this.#text(response);
          const dpopNonce = response.headers.get("dpop-nonce");
          const challenge: AuthChallenge = {
            resource: this.url,
            status,
            wwwAuthenticate,
            attempt,
            ...(dpopNonce ? { dpopNonce } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
          };
          const retry = await untimed(() => auth.handleChallenge(challenge));
          if (retry) continue;
          throw new HttpStatusError(
            status,
            response.statusText,
            response.headers,
            text.slice(0, 500),
            this.url.href,
            true,
          );
        }
      }
      if (session?.id !== undefined && status === 404) {
        await response.body?.cancel();
        if (this.#session === session) this.#session = undefined;
        session.drop();
        throw new SessionExpiredError(this.url.href);
      }
      if (request.method === LegacyMethod.initialize) {
        this.#offeredSessionId = response.headers.get(HEADER.sessionId) ?? undefined;
      }
      return this.#answer(response, request, options.signal);
    }
  }

  async notify(message: JsonRpcNotification): Promise<void> {
    if (this.#session) return this.#session.send(message);
    const headers = await this.#baseHeaders();
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    const response = await this.#fetch(this.url, { method: "POST", headers, body: JSON.stringify(message) });
    await response.body?.cancel();
  }

  startSession(protocolVersion: string): void {
    this.#session?.drop();
    const session = new HttpSession(this.#wire, this.#offeredSessionId, protocolVersion);
    this.#offeredSessionId = undefined;
    this.#session = session;
  }

  listen(): void {
    this.#session?.listen();
  }

  async endSession(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    await session?.end();
  }

  async close(): Promise<void> {
    await this.endSession();
  }

  get #wire(): SessionWire {
    return {
      url: this.url,
      fetch: (input, init) => this.#fetch(input, init),
      logger: this.#logger,
      limits: this.#limits,
      baseHeaders: (signal, method) => this.#baseHeaders(signal, method),
      deliver: (message, relatedTo, signal) => this.#deliver(message, relatedTo, signal),
    };
  }

  async #answer(
    response: Response,
    request: JsonRpcRequest,
    signal: AbortSignal | undefined,
  ): Promise<JsonRpcResponse> {
    const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (response.ok && type === "text/event-stream" && response.body) {
      return this.#readStream(response.body, request, signal);
    }
    const text = await this.#text(response);
    const body = parseJson(text);
    // A JSON-RPC error travels with 4xx statuses too (-32020/-32021/-32022 with 400, -32601 with 404).
    const received = classifyServerMessage(body);
    if (received.kind === "response" && (response.ok || "error" in received.message)) return received.message;
    if (!response.ok) {
      throw new HttpStatusError(
        response.status,
        response.statusText,
        response.headers,
        text.slice(0, 500),
        this.url.href,
        this.#auth !== undefined,
      );
    }
    throw new HttpStatusError(
      response.status,
      `with no JSON-RPC response for ${request.method}`,
      response.headers,
      text.slice(0, 500),
      this.url.href,
    );
  }

  #text(response: Response): Promise<string> {
    return readBodyText(response, this.#limits.maxResponseBytes, this.url.href);
  }

  async #baseHeaders(signal?: AbortSignal, method = "POST"): Promise<Headers> {
    const configured = typeof this.#headers === "function" ? await this.#headers() : this.#headers;
    const headers = new Headers(configured);
    const authorization = await this.#auth?.authorization(this.url, signal);
    if (authorization !== undefined) {
      headers.set("authorization", authorization);
      const proof = await this.#auth?.proof?.(this.url, method, authorization);
      if (proof !== undefined) headers.set("dpop", proof);
    }
    return headers;
  }

  async #requestHeaders(
    request: JsonRpcRequest,
    extra: TransportRequestOptions["headers"],
    signal: AbortSignal | undefined,
  ): Promise<Headers> {
    const headers = await this.#baseHeaders(signal);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    if (this.#session) {
      this.#session.apply(headers);
      return headers;
    }
    const meta = request.params?._meta;
    const version = isRecord(meta) ? meta[META.protocolVersion] : undefined;
    // No envelope: a 2025-era request before its session (initialize), which has none of these headers.
    if (typeof version !== "string") return headers;
    headers.set(HEADER.protocolVersion, version);
    headers.set(HEADER.method, request.method);
    const name = requestName(request.method, request.params);
    if (name !== undefined) headers.set(HEADER.name, encodeHeaderValue(name));
    for (const [key, value] of Object.entries(extra ?? {})) headers.set(key, value);
    return headers;
  }

  async #readStream(
    body: ReadableStream<Uint8Array>,
    request: JsonRpcRequest,
    signal: AbortSignal | undefined,
  ): Promise<JsonRpcResponse> {
    let answer: JsonRpcResponse | undefined;
    const cursor: StreamCursor = {};
    await readServerStream(body, cursor, { url: this.url, limits: this.#limits }, (message) => {
      if (
        message.kind === "response" &&
        (message.message.id === request.id || message.message.id === undefined)
      ) {
        answer = message.message;
        return true;
      }
      this.#deliver(message, request, signal);
      return false;
    });
    if (answer) return answer;
    // A 2025-era server that gave its stream event ids can replay what we missed.
    const session = this.#session;
    if (session && cursor.lastEventId !== undefined) return session.resume(request, cursor, signal);
    throw new ResponseStreamClosedError(request.method);
  }

  #deliver(message: ServerMessage, relatedTo: JsonRpcRequest | undefined, signal?: AbortSignal): void {
    if (message.kind === "notification") this.onNotification?.(message.message);
    else if (message.kind === "request") this.#serve(message.message, relatedTo ? { relatedTo, signal } : {});
  }

  /** Answers a server request on the session; its response is POSTed, never awaited by the stream. */
  #serve(request: JsonRpcRequest, origin: ServerRequestOrigin): void {
    const session = this.#session;
    const handler = this.onRequest;
    const answered: Promise<JsonRpcResponse> = handler
      ? handler(request, origin)
      : Promise.resolve(
          errorResponse(request.id, {
            code: ErrorCode.MethodNotFound,
            message: `This client answers no server requests (${request.method})`,
          }),
        );
    answered
      .then((response) => (session ?? this.#session)?.send(response))
      .catch((error: unknown) =>
        this.#logger.warn(
          { ...describeError(error), method: request.method },
          "could not answer the server's request",
        ),
      );
  }
}

/**
 * On a 2025-era session, aborting a request also tells the server, which would otherwise keep the call
 * (and any question it is waiting on the user for) running. initialize is never cancelled (the spec
 * forbids it). Returns what stops listening once the request settles.
 */
function cancelOnAbort(
  session: HttpSession,
  request: JsonRpcRequest,
  signal: AbortSignal | undefined,
  logger: Logger,
): (() => void) | undefined {
  if (!signal || request.method === LegacyMethod.initialize) return undefined;
  const onAbort = () => {
    session.send(cancelledNotification(request, signal)).catch((error: unknown) => {
      logger.warn(
        { method: request.method, ...describeError(error) },
        "could not tell the server that a request was cancelled",
      );
    });
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
