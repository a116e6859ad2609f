import { SealingError } from "./sealing-error.js";

/**
 * Sealing an outbound requestState failed: the principal binding threw or returned something other
 * than a string or null, or the codec's `seal` threw. This is the server's fault, not the client's,
 * so it maps to a JSON-RPC internal error (-32603) rather than the frozen invalid-state error.
 * `reason` is for the server log; `cause` holds the original exception when there is one.
 */
export class RequestStateSealError extends SealingError {
  static readonly code = "ERR_REQUEST_STATE_SEAL";
  readonly code = RequestStateSealError.code;
  readonly reason: string;

  constructor(reason: string, options?: ErrorOptions) {
    super(`refusing to seal requestState: ${reason}`, options);
    this.name = "RequestStateSealError";
    this.reason = reason;
  }
}
