import { type OAuthErrorCode, SdkError } from "../../protocol/sdk-error.js";

export type { OAuthErrorCode } from "../../protocol/sdk-error.js";

/**
 * The OAuth client failed. `code` says what went wrong (see OAuthErrorCode); the message says what to do
 * about it and never contains a token, a code or a client secret.
 */
export class OAuthError extends SdkError {
  override readonly name = "OAuthError";
  readonly code: OAuthErrorCode;
  /** The authorization server's own error code, when it sent one (`invalid_grant`, `access_denied`, …). */
  readonly oauthError?: string;

  constructor(code: OAuthErrorCode, message: string, options: { oauthError?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.oauthError !== undefined) this.oauthError = options.oauthError;
  }
}
