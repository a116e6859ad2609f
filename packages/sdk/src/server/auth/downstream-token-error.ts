import { SdkError } from "../../protocol/sdk-error.js";

/** Why a downstream token could not be had. */
export type DownstreamTokenFailure =
  /** The tool's context carries no validated caller token (an unauthenticated transport, stdio). */
  | "no_caller_token"
  /** The caller's token is DPoP-bound and the downstream needs a binding this server cannot prove. */
  | "binding"
  /** The authorization server refused the exchange (`oauthError` holds its error code). */
  | "refused"
  /** The authorization server or its answer could not be used. */
  | "authorization_server";

/**
 * A token exchange for a downstream API did not happen or failed. The message names the downstream and
 * the cause, never a token.
 */
export class DownstreamTokenError extends SdkError {
  static readonly code = "ERR_DOWNSTREAM_TOKEN";
  override readonly name = "DownstreamTokenError";
  readonly code = DownstreamTokenError.code;
  readonly reason: DownstreamTokenFailure;
  readonly oauthError?: string;

  constructor(
    reason: DownstreamTokenFailure,
    message: string,
    options: { oauthError?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.oauthError !== undefined) this.oauthError = options.oauthError;
  }
}
