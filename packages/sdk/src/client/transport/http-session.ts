import { HEADER } from "../../protocol/http-headers.js";
import {
  classifyServerMessage,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type ServerMessage,
} from "../../protocol/jsonrpc.js";
import { describeError, type Logger } from "../../protocol/logger.js";
import { abortReason } from "./client-transport.js";
import { isConnectionReset } from "./connection-reset.js";
import { HttpStatusError, ResponseStreamClosedError } from "./http-errors.js";
import { type ResponseLimits, readBodyText } from "./response-limits.js";
import { readSseEvents } from "./sse-events.js";

/** What a session needs from the transport that opened it. */
export interface SessionWire {
  readonly url: URL;
  readonly fetch: typeof fetch;
  readonly logger: Logger;
  readonly limits: ResponseLimits;
  /** The configured headers and credentials every request carries. */
  /** `method` is the request's, for a DPoP proof (POST when omitted). */
  baseHeaders(signal?: AbortSignal, method?: string): Promise<Headers>;
  /**
   * A server message read from one of the session's streams; `relatedTo` names the request it rode,
   * `signal` is that request's.
   */
  deliver(message: ServerMessage, relatedTo: JsonRpcRequest | undefined, signal?: AbortSignal): void;
}

/** Where a stream was when it ended: enough to reconnect and have the server replay what followed. */
export interface StreamCursor {
  lastEventId?: string;
  retryMs?: number;
}

/** The reconnection delay when the server never sent `retry:` (the SSE specification leaves it to us). */
export const DEFAULT_RETRY_MS = 1000;
/** Reconnections of one cut stream that bring nothing new before the request fails. */
const MAX_IDLE_RESUMES = 3;
/** Consecutive failed GETs after which the session stops listening for unrelated messages. */
const MAX_LISTEN_FAILURES = 3;

/**
 * Reads one SSE stream of server messages, advancing `cursor`, until `onMessage` says the awaited
 * message came (true) or the stream ends (false). A connection reset once the stream has given an
 * event id is an end too: the server can replay what followed from that id, so nothing is sent
 * twice. Without an id the reset is thrown, and only a request that may safely go again is re-sent.
 */
export async function readServerStream(
  body: ReadableStream<Uint8Array>,
  cursor: StreamCursor,
  from: Pick<SessionWire, "url" | "limits">,
  onMessage: (message: ServerMessage) => boolean,
): Promise<boolean> {
  const events = readSseEvents(body, {
    maxEventChars: from.limits.maxEventChars,
    url: from.url.href,
    onRetry: (ms) => {
      cursor.retryMs = ms;
    },
  });
  try {
    for await (const event of events) {
      if (event.id !== undefined) cursor.lastEventId = event.id;
      if (event.event !== "message" || event.data === "") continue;
      if (onMessage(classifyServerMessage(parseJson(event.data)))) return true;
    }
  } catch (error) {
    if (!isConnectionReset(error) || cursor.lastEventId === undefined) throw error;
  }
  return false;
}

/**
 * A 2025-era Streamable HTTP session: the id the server assigned in its initialize response and the
 * negotiated version, sent on every request; the GET stream for messages unrelated to a request;
 * resumption of a response stream cut before its answer; DELETE when it ends.
 */
export class HttpSession {
  readonly id: string | undefined;
  readonly protocolVersion: string;
  readonly #wire: SessionWire;
  readonly #ended = new AbortController();
  #listening = false;

  constructor(wire: SessionWire, id: string | undefined, protocolVersion: string) {
    this.#wire = wire;
    this.id = id;
    this.protocolVersion = protocolVersion;
  }

  /** Adds the session's headers to a request's. */
  apply(headers: Headers): void {
    if (this.id !== undefined) headers.set(HEADER.sessionId, this.id);
    headers.set(HEADER.protocolVersion, this.protocolVersion);
  }

  /** Opens the GET stream and keeps it open (reconnecting as the server asks) until the session ends. */
  listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#listen().catch((error: unknown) => {
      if (!this.#ended.signal.aborted)
        this.#wire.logger.warn(describeError(error), "the session's GET stream failed; not listening");
    });
  }

  /**
   * Reconnects to a response stream the server cut before answering, by GET with Last-Event-ID after
   * the delay its `retry:` field asked for, until the response comes.
   */
  async resume(
    request: JsonRpcRequest,
    cursor: StreamCursor,
    signal: AbortSignal | undefined,
  ): Promise<JsonRpcResponse> {
    let answer: JsonRpcResponse | undefined;
    let idle = 0;
    while (idle < MAX_IDLE_RESUMES) {
      const from = cursor.lastEventId;
      await delay(cursor.retryMs ?? DEFAULT_RETRY_MS, signal, this.#ended.signal);
      const response = await this.#get(from, signal);
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new ResponseStreamClosedError(
          request.method,
          `resuming it from event ${String(from)} was refused with HTTP ${response.status}; the server may not keep its streams' events, call again`,
        );
      }
      const found = await readServerStream(response.body, cursor, this.#wire, (message) => {
        if (message.kind === "response" && message.message.id === request.id) {
          answer = message.message;
          return true;
        }
        this.#wire.deliver(message, request, signal);
        return false;
      });
      if (found && answer) return answer;
      idle = cursor.lastEventId === from ? idle + 1 : 0;
    }
    throw new ResponseStreamClosedError(
      request.method,
      `${MAX_IDLE_RESUMES} reconnections brought nothing new; call again`,
    );
  }

  /** POSTs a response to a server request, or a notification; the server acknowledges with 202. */
  async send(message: JsonRpcMessage): Promise<void> {
    const headers = await this.#wire.baseHeaders(this.#ended.signal);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    this.apply(headers);
    const init = { method: "POST", headers, body: JSON.stringify(message), signal: this.#ended.signal };
    let response: Response;
    try {
      response = await this.#wire.fetch(this.#wire.url, init);
    } catch (error) {
      // A notification changes nothing twice over; a response to the server's request goes once.
      if ("id" in message || !isConnectionReset(error)) throw error;
      response = await this.#wire.fetch(this.#wire.url, init);
    }
    const text = await readBodyText(response, this.#wire.limits.maxResponseBytes, this.#wire.url.href);
    if (!response.ok) {
      throw new HttpStatusError(
        response.status,
        response.statusText,
        response.headers,
        text.slice(0, 500),
        this.#wire.url.href,
      );
    }
  }

  /** Stops listening and asks the server to end the session; a server that refuses DELETE (405) is fine. */
  async end(): Promise<void> {
    if (this.#ended.signal.aborted) return;
    this.#ended.abort();
    if (this.id === undefined) return;
    try {
      const headers = await this.#wire.baseHeaders(undefined, "DELETE");
      this.apply(headers);
      const response = await this.#wire.fetch(this.#wire.url, { method: "DELETE", headers });
      await response.body?.cancel();
    } catch (error) {
      this.#wire.logger.debug(describeError(error), "DELETE of the MCP session failed; it will expire");
    }
  }

  /** Forgets the session without telling the server (it already said the session is gone). */
  drop(): void {
    this.#ended.abort();
  }

  async #listen(): Promise<void> {
    const cursor: StreamCursor = {};
    let failures = 0;
    let first = true;
    while (!this.#ended.signal.aborted && failures < MAX_LISTEN_FAILURES) {
      if (!first) await delay(cursor.retryMs ?? DEFAULT_RETRY_MS, undefined, this.#ended.signal);
      first = false;
      const response = await this.#get(cursor.lastEventId, undefined);
      // 405: the server offers no GET stream, which the protocol allows.
      if (response.status === 405) {
        await response.body?.cancel();
        return;
      }
      const type = response.headers.get("content-type") ?? "";
      if (!response.ok || !response.body || !type.includes("text/event-stream")) {
        await response.body?.cancel();
        failures += 1;
        this.#wire.logger.debug({ status: response.status }, "the session's GET stream was refused");
        continue;
      }
      failures = 0;
      await readServerStream(response.body, cursor, this.#wire, (message) => {
        this.#wire.deliver(message, undefined);
        return false;
      });
    }
  }

  async #get(lastEventId: string | undefined, signal: AbortSignal | undefined): Promise<Response> {
    const headers = await this.#wire.baseHeaders(signal, "GET");
    headers.set("accept", "text/event-stream");
    this.apply(headers);
    if (lastEventId !== undefined) headers.set(HEADER.lastEventId, lastEventId);
    const signals = signal ? AbortSignal.any([signal, this.#ended.signal]) : this.#ended.signal;
    return this.#wire.fetch(this.#wire.url, { method: "GET", headers, signal: signals });
  }
}

function delay(ms: number, signal: AbortSignal | undefined, ended: AbortSignal): Promise<void> {
  const signals = signal ? AbortSignal.any([signal, ended]) : ended;
  if (signals.aborted) return Promise.reject(abortReason(signals));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signals));
    };
    const timer = setTimeout(() => {
      signals.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signals.addEventListener("abort", onAbort, { once: true });
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
