import { SdkError } from "../../protocol/sdk-error.js";

/** A non-2xx answer that carries no JSON-RPC error (authentication, a proxy, a missing endpoint). */
export class HttpStatusError extends SdkError {
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
          : status === 404
            ? "; no MCP endpoint answers at this URL: check its path (servers often serve MCP at /mcp)"
            : status === 405
              ? "; check that the URL is the server's MCP endpoint"
              : "";
    super(`HTTP ${status} ${statusText} from ${url}${hint}`);
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/** The response stream ended before the answer: 2026-07-28 has no resumption, the request must be re-sent. */
export class ResponseStreamClosedError extends SdkError {
  static readonly code = "ERR_RESPONSE_STREAM_CLOSED";
  override readonly name = "ResponseStreamClosedError";
  readonly code = ResponseStreamClosedError.code;
  constructor(method: string, detail = "re-send the request") {
    super(`The server closed the response stream of ${method} before answering; ${detail}`);
  }
}

/**
 * The server answered 404 on the 2025-era session: it ended or expired. A new session starts with
 * initialize; the Client does that once on its own before giving up with this error.
 */
export class SessionExpiredError extends SdkError {
  static readonly code = "ERR_SESSION_EXPIRED";
  override readonly name = "SessionExpiredError";
  readonly code = SessionExpiredError.code;
  constructor(url: string) {
    super(
      `The server at ${url} no longer knows this client's MCP session (HTTP 404); connect again to start a new one`,
    );
  }
}

/**
 * A response outgrew a configured limit, so reading stopped and the body was cancelled: a server that
 * answers without end cannot exhaust the client's memory.
 */
export class ResponseTooLargeError extends SdkError {
  static readonly code = "ERR_RESPONSE_TOO_LARGE";
  override readonly name = "ResponseTooLargeError";
  readonly code = ResponseTooLargeError.code;
  /** The option that set the limit. */
  readonly option: "maxResponseBytes" | "maxEventChars";
  readonly limit: number;

  constructor(url: string, option: "maxResponseBytes" | "maxEventChars", limit: number) {
    const what =
      option === "maxResponseBytes"
        ? `a response body over ${limit} bytes`
        : `an SSE event over ${limit} characters`;
    super(
      `${url} sent ${what}, so reading stopped; if its answers are meant to be that large, raise ${option} in the HTTP transport options`,
    );
    this.option = option;
    this.limit = limit;
  }
}

/**
 * The server answered an MCP request with a redirect. Following it would re-send the request's body
 * (answers, requestState) and its credentials to wherever the server points, so it is refused.
 */
export class RedirectRefusedError extends SdkError {
  static readonly code = "ERR_REDIRECT_REFUSED";
  override readonly name = "RedirectRefusedError";
  readonly code = RedirectRefusedError.code;
  readonly status: number;
  /** Where the server pointed, when it said (a browser's fetch hides it). */
  readonly location: string | undefined;

  constructor(url: string, status: number, location: string | undefined) {
    const target = location === undefined ? "elsewhere" : `to ${location}`;
    super(
      `${url} answered ${status === 0 ? "with a redirect" : `HTTP ${status}`} ${target}; MCP requests do not follow redirects, since that would send their body and credentials to another place: configure the client with the server's actual MCP endpoint`,
    );
    this.status = status;
    this.location = location;
  }
}

/**
 * fetch could not exchange a request with the server: nothing listens there (ECONNREFUSED), the name
 * does not resolve (ENOTFOUND), or the connection closed before an answer came (ECONNRESET). fetch
 * says only "fetch failed" and keeps the reason in its cause; this names the URL and the reason.
 */
export class ConnectionFailedError extends SdkError {
  static readonly code = "ERR_CONNECTION_FAILED";
  override readonly name = "ConnectionFailedError";
  readonly code = ConnectionFailedError.code;
  /** The system's code for the failure (ECONNREFUSED, ENOTFOUND, …), when fetch gave one. */
  readonly reason: string | undefined;

  constructor(url: string, cause: TypeError) {
    const reason = systemCodeOf(cause);
    const detail = cause.cause instanceof Error ? cause.cause.message : cause.message;
    super(
      `cannot reach ${url}${reason ? ` (${reason})` : ""}: ${detail}; check the URL and that the server runs`,
      { cause },
    );
    this.reason = reason;
  }
}

/** The code Node's fetch (undici) puts on its cause: ECONNREFUSED, ENOTFOUND, ECONNRESET, UND_ERR_SOCKET. */
export function systemCodeOf(error: TypeError): string | undefined {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
