/**
 * An HTTP-level refusal (authentication, Origin, method, size) that is answered before any JSON-RPC
 * processing. `headers` carries challenges such as WWW-Authenticate.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON-RPC error code for the optional body, when one applies. */
  readonly code: number | undefined;

  constructor(
    status: number,
    message: string,
    options: { headers?: Record<string, string>; code?: number } = {},
  ) {
    super(message);
    this.status = status;
    this.headers = options.headers ?? {};
    this.code = options.code;
  }
}

/** HTTP status for a JSON-RPC error, as the 2026-07-28 Streamable HTTP table assigns them. */
export function statusForError(code: number, refusedBeforeDispatch: boolean): number {
  switch (code) {
    case -32700:
    case -32600:
    case -32020:
    case -32021:
    case -32022:
      return 400;
    case -32601:
      return 404;
    case -32602:
      // Malformed envelopes and params are the client's request; a handler's verdict travels in-band.
      return refusedBeforeDispatch ? 400 : 200;
    default:
      return 200;
  }
}
