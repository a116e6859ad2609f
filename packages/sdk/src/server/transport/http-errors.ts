import { ErrorCode } from "../../protocol/errors.js";
import { SdkError } from "../../protocol/sdk-error.js";

/**
 * An HTTP-level refusal (authentication, Origin, method, size) that is answered before any JSON-RPC
 * processing. `headers` carries challenges such as WWW-Authenticate.
 */
export class HttpError extends SdkError {
  static readonly code = "ERR_HTTP_REFUSED";
  override readonly name = "HttpError";
  readonly code = HttpError.code;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON-RPC error code for the optional body, when one applies (`code` is the SDK error code). */
  readonly rpcCode: ErrorCode | undefined;

  constructor(
    status: number,
    message: string,
    options: { headers?: Record<string, string>; rpcCode?: ErrorCode } = {},
  ) {
    super(message);
    this.status = status;
    this.headers = options.headers ?? {};
    this.rpcCode = options.rpcCode;
  }
}

/** HTTP status for a JSON-RPC error, as the 2026-07-28 Streamable HTTP table assigns them. */
export function statusForError(code: number, refusedBeforeDispatch: boolean): number {
  switch (code) {
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.InvalidParams:
      // Malformed envelopes and params are the client's request; a handler's verdict travels in-band.
      return refusedBeforeDispatch ? 400 : 200;
    default:
      return 200;
  }
}
