import { ErrorCode, McpError } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";
import { isRefusedRequestState } from "../flow/saved-state.js";

/**
 * The server refused the call's arguments: a -32602 error (other than a refused requestState, which is
 * the flow's, not the command line's), or an error result whose text is that error, as servers on the
 * official v1 SDK report a tool's input validation. A Roundtrip server answers a value its input schema
 * refuses with an ordinary error result instead (the model may correct itself), which exits 5.
 */
export function argumentRefusal(error: unknown): CliError | undefined {
  if (
    !(error instanceof McpError) ||
    error.code !== ErrorCode.InvalidParams ||
    isRefusedRequestState(error)
  ) {
    return undefined;
  }
  return refused(error.message, error);
}

export function argumentRefusalResult(result: Record<string, unknown>): CliError | undefined {
  if (result.isError !== true || !Array.isArray(result.content)) return undefined;
  const [first] = result.content as { type?: unknown; text?: unknown }[];
  if (first?.type !== "text" || typeof first.text !== "string") return undefined;
  return /^MCP error -32602\b/.test(first.text) ? refused(first.text) : undefined;
}

function refused(message: string, cause?: unknown): CliError {
  return new CliError(
    ExitCode.usage,
    `the server refused the arguments as invalid: ${message}; check them against \`roundtrip tools --long\``,
    cause === undefined ? undefined : { cause },
  );
}
