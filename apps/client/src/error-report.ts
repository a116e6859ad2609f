import { ConnectionFailedError, HttpStatusError } from "@roundtrip/sdk/client";
import { OAuthError } from "@roundtrip/sdk/oauth-client";
import { McpError } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode, type ExitCodeValue } from "./exit-codes.js";

/**
 * Any failure as the exit code and one message that says what to do. Messages come from our own
 * errors, the SDK's and the server's; none of them carries a token or a requestState.
 */
export function describeFailure(
  error: unknown,
  server: string | undefined,
): { code: ExitCodeValue; message: string } {
  if (error instanceof CliError) return { code: error.exitCode, message: error.message };
  if (error instanceof Error && error.name === "ExitPromptError") {
    return { code: ExitCode.interrupted, message: "interrupted; nothing more was sent" };
  }
  if (error instanceof Error && error.name === "AbortPromptError") {
    return { code: ExitCode.interrupted, message: "the question was abandoned; nothing more was sent" };
  }
  if (error instanceof OAuthError) {
    return { code: ExitCode.auth, message: `sign-in failed (${error.code}): ${error.message}` };
  }
  if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
    const login = `roundtrip login${server ? ` --server ${server}` : ""}`;
    return {
      code: ExitCode.auth,
      message:
        error.status === 401
          ? `${server ?? "the server"} wants credentials: run \`${login}\` (with --client-id/--client-secret for a machine client), or set ROUNDTRIP_TOKEN`
          : `${server ?? "the server"} refused the credentials (HTTP 403); log in with a client or user that has the needed scope: \`${login} --scope ...\``,
    };
  }
  if (error instanceof McpError) {
    return {
      code: ExitCode.failure,
      message: `the server answered with error ${error.code}: ${error.message}`,
    };
  }
  // The SDK names a failed MCP request with its URL and reason; the sign-in's own requests fail bare.
  if (error instanceof ConnectionFailedError) return { code: ExitCode.failure, message: error.message };
  if (error instanceof TypeError && error.message === "fetch failed") {
    const cause = (error.cause as { code?: string } | undefined)?.code;
    return {
      code: ExitCode.failure,
      message: `cannot reach ${server ?? "the server"}${cause ? ` (${cause})` : ""}; check the URL and that the server runs`,
    };
  }
  return { code: ExitCode.failure, message: error instanceof Error ? error.message : String(error) };
}
