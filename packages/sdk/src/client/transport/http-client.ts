import { parseBearerChallenge } from "../../protocol/auth/challenge.js";
import { carrierTarget } from "../../protocol/carriers.js";
import { encodeHeaderValue } from "../../protocol/http-headers.js";
import { isRecord } from "../../protocol/is-record.js";
import {
  classifyServerMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/jsonrpc.js";
import { RoundtripError } from "../../protocol/roundtrip-error.js";
import { META } from "../../protocol/versions.js";
import type { ClientAuthProvider } from "../auth-provider.js";
import type { ClientTransport, TransportRequestOptions } from "./client-transport.js";
import { readSseEvents } from "./sse-events.js";

type HeaderSource = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

export interface HttpClientOptions {
  /** Replaces the global fetch (a proxy-aware one, or one that records requests in tests). */
  fetch?: typeof fetch;
  /** Headers sent on every POST, such as Authorization; a function is called per request. */
  headers?: HeaderSource;
  /**
   * Credentials per request: asked for the Authorization header before each POST, and handed the
   * server's 401 or 403 insufficient_scope challenge (`oauthClientProvider` from `@roundtrip/sdk/oauth`).
   * Its header replaces an Authorization from `headers`.
   */
  auth?: ClientAuthProvider;
}

/** A non-2xx answer that carries no JSON-RPC error (authentication, a proxy, a missing endpoint). */
export class HttpStatusError extends RoundtripError {
  static readonly code = "ERR_HTTP_STATUS";
  override readonly name = "HttpStatusError";
  readonly code = HttpStatusError.code;
  readonly status: number;
  readonly headers: Headers;
  /** The start of the response body, for diagnosis. */
  readonly body: string;

  constructor(
    status: number,
    statusText: string,
    headers: Headers,
    body: string,
    url: string,
    authConfigured = false,
  ) {
    const hint =
      (status === 401 || status === 403) && authConfigured
        ? "; the auth provider could not obtain credentials this server accepts (check the scopes and client it is configured with)"
        : status === 401 || status === 403
          ? "; the server wants credentials: pass an Authorization header in the transport's headers option, or an auth provider"
          : status === 404 || status === 405
            ? "; check that the URL is the server's MCP endpoint"
            : "";
    super(`HTTP ${status} ${statusText} from ${url}${hint}`);
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/** The response stream ended before the answer: 2026-07-28 has no resumption, the request must be re-sent. */
export class ResponseStreamClosedError extends RoundtripError {
  static readonly code = "ERR_RESPONSE_STREAM_CLOSED";
  override readonly name = "ResponseStreamClosedError";
  readonly code = ResponseStreamClosedError.code;
  constructor(method: string) {
    super(`The server closed the response stream of ${method} before answering; re-send the request`);
  }
}

/**
 * Streamable HTTP (2026-07-28), client side, over fetch: one POST per request with the request metadata
 * headers, answered by either one JSON body or an SSE stream of notifications ending in the response.
 * Aborting the signal closes the request, which is how HTTP cancels.
 */
export class HttpClientTransport implements ClientTransport {
  readonly kind = "http";
  readonly url: URL;
  onNotification?: (notification: JsonRpcNotification) => void;
  readonly #fetch: typeof fetch;
  readonly #headers: HeaderSource | undefined;
  readonly #auth: ClientAuthProvider | undefined;

  constructor(url: string | URL, options: HttpClientOptions = {}) {
    this.url = new URL(url);
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#headers = options.headers;
    this.#auth = options.auth;
  }

  async request(request: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    // The body is a string, so a refused request can be sent again unchanged once credentials improve.
    const body = JSON.stringify(request);
    for (let attempt = 1; ; attempt++) {
      const headers = await this.#requestHeaders(request, options.headers);
      const authorization = await this.#auth?.authorization(this.url, options.signal);
      if (authorization !== undefined) headers.set("authorization", authorization);
      const response = await this.#fetch(this.url, {
        method: "POST",
        headers,
        body,
        signal: options.signal,
      });
      const status = response.status;
      if (this.#auth && (status === 401 || status === 403)) {
        const wwwAuthenticate = response.headers.get("www-authenticate");
        if (status === 401 || parseBearerChallenge(wwwAuthenticate)?.error === "insufficient_scope") {
          const text = await response.text();
          const retry = await this.#auth.handleChallenge({
            resource: this.url,
            status,
            wwwAuthenticate,
            attempt,
            ...(options.signal ? { signal: options.signal } : {}),
          });
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
      return this.#answer(response, request);
    }
  }

  async #answer(response: Response, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (response.ok && type === "text/event-stream" && response.body) {
      return this.#readStream(response.body, request);
    }
    const text = await response.text();
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

  async close(): Promise<void> {}

  async #requestHeaders(
    request: JsonRpcRequest,
    extra: TransportRequestOptions["headers"],
  ): Promise<Headers> {
    const configured = typeof this.#headers === "function" ? await this.#headers() : this.#headers;
    const headers = new Headers(configured);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    const meta = request.params?._meta;
    const version = isRecord(meta) ? meta[META.protocolVersion] : undefined;
    if (typeof version === "string") headers.set("mcp-protocol-version", version);
    headers.set("mcp-method", request.method);
    const name = carrierTarget(request.method, request.params);
    if (name !== undefined) headers.set("mcp-name", encodeHeaderValue(name));
    for (const [key, value] of Object.entries(extra ?? {})) headers.set(key, value);
    return headers;
  }

  async #readStream(body: ReadableStream<Uint8Array>, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    for await (const event of readSseEvents(body)) {
      if (event.event !== "message") continue;
      const received = classifyServerMessage(parseJson(event.data));
      if (received.kind === "notification") this.onNotification?.(received.message);
      else if (
        received.kind === "response" &&
        (received.message.id === request.id || received.message.id === undefined)
      ) {
        return received.message;
      }
    }
    throw new ResponseStreamClosedError(request.method);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
