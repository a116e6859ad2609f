import { RoundtripError } from "../../protocol/roundtrip-error.js";

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
  constructor(method: string, detail = "re-send the request") {
    super(`The server closed the response stream of ${method} before answering; ${detail}`);
  }
}

/**
 * The server answered 404 on the 2025-era session: it ended or expired. A new session starts with
 * initialize; the Client does that once on its own before giving up with this error.
 */
export class SessionExpiredError extends RoundtripError {
  static readonly code = "ERR_SESSION_EXPIRED";
  override readonly name = "SessionExpiredError";
  readonly code = SessionExpiredError.code;
  constructor(url: string) {
    super(
      `The server at ${url} no longer knows this client's MCP session (HTTP 404); connect again to start a new one`,
    );
  }
}
