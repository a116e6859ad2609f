import type {
  ConnectionFailedError,
  HttpStatusError,
  InputCallbackError,
  InputRequestUnsupportedError,
  InputRequiredNotAllowedError,
  InputRequiredRoundsExceededError,
  PaginationError,
  ProtocolViolationError,
  RedirectRefusedError,
  RequestTimeoutError,
  ResponseStreamClosedError,
  ResponseTooLargeError,
  SessionExpiredError,
  SkillIntegrityError,
  StructuredContentError,
  SubscriptionLostError,
  TaskCancelledError,
  ToolRejectedError,
  VersionNegotiationError,
} from "./client/index.js";
import type { OAuthError } from "./client/oauth/index.js";
import type { DownstreamTokenError, InvalidTokenError } from "./server/auth/index.js";
import type { InputResponseError, ToolError } from "./server/index.js";

/**
 * Every error a caller can catch from the SDK that is not a peer's JSON-RPC error (those are McpError):
 * `switch (error.code)` narrows it to the class. Each member extends SdkError, so
 * `error instanceof SdkError` tells a value of this union from anything else thrown.
 */
export type AnySdkError =
  | InputRequiredRoundsExceededError
  | InputRequiredNotAllowedError
  | InputRequestUnsupportedError
  | InputCallbackError
  | ProtocolViolationError
  | ToolRejectedError
  | TaskCancelledError
  | VersionNegotiationError
  | HttpStatusError
  | ConnectionFailedError
  | ResponseStreamClosedError
  | SessionExpiredError
  | SkillIntegrityError
  | ResponseTooLargeError
  | RedirectRefusedError
  | RequestTimeoutError
  | StructuredContentError
  | PaginationError
  | SubscriptionLostError
  | OAuthError
  | InvalidTokenError
  | DownstreamTokenError
  | InputResponseError
  | ToolError;
