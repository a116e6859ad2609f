import { SdkError } from "../protocol/sdk-error.js";

/**
 * Thrown by a tool handler whose message is written for the client: it becomes the tool's `isError`
 * text as it is. Any other exception may carry internals (a connection string, a query), so the client
 * gets a generic text and the detail goes to the log, unless the server sets `exposeErrors`.
 */
export class ToolError extends SdkError {
  static readonly code = "ERR_TOOL_FAILED";
  override readonly name = "ToolError";
  readonly code = ToolError.code;
}
