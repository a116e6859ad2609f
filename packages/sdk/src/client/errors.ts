import { methodFacts } from "../protocol/methods.js";
import type { CallToolResult } from "../protocol/schemas/tools.js";
import { SdkError } from "../protocol/sdk-error.js";

/**
 * Errors the client raises on its own. They are never JSON-RPC errors from the server (those arrive as
 * McpError), so a caller can tell a local refusal from a peer's answer.
 */

/** The automatic loop met more InputRequiredResults than `inputRequiredMaxRounds` allows. */
export class InputRequiredRoundsExceededError extends SdkError {
  static readonly code = "ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED";
  override readonly name = "InputRequiredRoundsExceededError";
  readonly code = InputRequiredRoundsExceededError.code;
  readonly maxRounds: number;
  readonly method: string;

  constructor(method: string, maxRounds: number) {
    super(
      `Server answered ${method} with input_required for more than ${maxRounds} rounds; raise inputRequiredMaxRounds in the Client options, or drive the loop yourself with client.manualRounds.${methodName(method)}(..., { allowInputRequired: true })`,
    );
    this.maxRounds = maxRounds;
    this.method = method;
  }
}

/** A `client.manualRounds` call met an InputRequiredResult without opting in to receive one. */
export class InputRequiredNotAllowedError extends SdkError {
  static readonly code = "ERR_INPUT_REQUIRED_NOT_ALLOWED";
  override readonly name = "InputRequiredNotAllowedError";
  readonly code = InputRequiredNotAllowedError.code;
  readonly method: string;

  constructor(method: string) {
    super(
      `Server answered ${method} with input_required; pass { allowInputRequired: true } to client.manualRounds.${methodName(method)} to receive it, answer its inputRequests and retry with inputResponses and requestState, or use client.${methodName(method)} to let the client run the rounds`,
    );
    this.method = method;
  }
}

/** The server embedded a request that no registered callback can answer. */
export class InputRequestUnsupportedError extends SdkError {
  static readonly code = "ERR_INPUT_REQUEST_UNSUPPORTED";
  override readonly name = "InputRequestUnsupportedError";
  readonly code = InputRequestUnsupportedError.code;
  readonly key: string;
  readonly method: string;

  constructor(key: string, method: string, remedy: string) {
    super(`Server sent a ${method} input request (key "${key}") this client cannot answer: ${remedy}`);
    this.key = key;
    this.method = method;
  }
}

/** A callback threw, or answered with something that is not the result its request asks for. */
export class InputCallbackError extends SdkError {
  static readonly code = "ERR_INPUT_CALLBACK";
  override readonly name = "InputCallbackError";
  readonly code = InputCallbackError.code;
  readonly key: string;
  readonly method: string;

  constructor(key: string, method: string, detail: string, cause?: unknown) {
    super(`The ${callbackName(method)} callback failed for input request "${key}" (${method}): ${detail}`, {
      cause,
    });
    this.key = key;
    this.method = method;
  }
}

/** The server sent something the 2026-07-28 protocol does not allow. */
export class ProtocolViolationError extends SdkError {
  static readonly code = "ERR_PROTOCOL_VIOLATION";
  override readonly name = "ProtocolViolationError";
  readonly code = ProtocolViolationError.code;
  readonly method: string;

  constructor(method: string, detail: string) {
    super(`Invalid ${method} answer from the server: ${detail}`);
    this.method = method;
  }
}

/** A tool call the server ran as a task ended cancelled: someone sent tasks/cancel, or the server gave up. */
export class TaskCancelledError extends SdkError {
  static readonly code = "ERR_TASK_CANCELLED";
  override readonly name = "TaskCancelledError";
  readonly code = TaskCancelledError.code;
  readonly method: string;

  constructor(method: string, statusMessage: string | undefined) {
    super(
      `The server ran this ${method} as a task and it was cancelled${statusMessage ? ` (${statusMessage})` : ""}; call it again for a new one`,
    );
    this.method = method;
  }
}

/** A tool the client dropped from tools/list (its x-mcp-header annotations break the rules) was called. */
export class ToolRejectedError extends SdkError {
  static readonly code = "ERR_TOOL_REJECTED";
  override readonly name = "ToolRejectedError";
  readonly code = ToolRejectedError.code;
  readonly tool: string;

  constructor(tool: string, reason: string) {
    super(
      `Tool "${tool}" cannot be called: the client dropped it from tools/list because ${reason}; the server must fix the tool's inputSchema`,
    );
    this.tool = tool;
  }
}

/** No protocol version both sides speak. */
export class VersionNegotiationError extends SdkError {
  static readonly code = "ERR_VERSION_NEGOTIATION";
  override readonly name = "VersionNegotiationError";
  readonly code = VersionNegotiationError.code;
  readonly serverVersions: readonly string[];
  readonly clientVersions: readonly string[];

  constructor(
    serverVersions: readonly string[],
    clientVersions: readonly string[],
    options: { detail?: string; cause?: unknown } = {},
  ) {
    super(
      `The server speaks protocol versions ${list(serverVersions)} and this client speaks ${list(clientVersions)}: there is no version in common; upgrade whichever side is older${options.detail ? ` (${options.detail})` : ""}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.serverVersions = serverVersions;
    this.clientVersions = clientVersions;
  }
}

/**
 * A request got no answer in time, so it was cancelled (stdio: notifications/cancelled; HTTP: its
 * stream closed). `option` names the setting that bounded it: `requestTimeoutMs` for any request,
 * `connectTimeoutMs` for the requests that settle the era and version.
 */
export class RequestTimeoutError extends SdkError {
  static readonly code = "ERR_REQUEST_TIMEOUT";
  override readonly name = "RequestTimeoutError";
  readonly code = RequestTimeoutError.code;
  readonly method: string;
  readonly timeoutMs: number;
  readonly option: "requestTimeoutMs" | "connectTimeoutMs";

  constructor(method: string, timeoutMs: number, option: "requestTimeoutMs" | "connectTimeoutMs") {
    const doing =
      option === "connectTimeoutMs" ? "Connecting failed: the server sent no answer to" : "No answer to";
    super(
      `${doing} ${method} within ${timeoutMs} ms, so the request was cancelled; if the server is only slow, raise ${option} in the Client options (0 waits without limit)`,
    );
    this.method = method;
    this.timeoutMs = timeoutMs;
    this.option = option;
  }
}

function list(versions: readonly string[]): string {
  return versions.length === 0 ? "(none named)" : versions.join(", ");
}

/** The Client method that sends a carrier request: the name the method table gives its handler. */
function methodName(method: string): string {
  return methodFacts(method)?.handler ?? "callTool";
}

export function callbackName(method: string): string {
  if (method === "elicitation/create") return "onElicit";
  if (method === "sampling/createMessage") return "onSample";
  if (method === "roots/list") return "onListRoots";
  return method;
}

/**
 * A tool's complete, successful result does not carry the structuredContent its outputSchema (from
 * tools/list) promises: none at all, or a value that does not match. The result is kept, for callers
 * who want to show it anyway.
 */
export class StructuredContentError extends SdkError {
  static readonly code = "ERR_STRUCTURED_CONTENT";
  override readonly name = "StructuredContentError";
  readonly code = StructuredContentError.code;
  readonly tool: string;
  /** Where and why the value fails the schema (empty when the result carries no structuredContent). */
  readonly violations: readonly string[];
  readonly result: CallToolResult;

  constructor(tool: string, result: CallToolResult, detail: string, violations: readonly string[] = []) {
    super(
      `Tool "${tool}" ${detail}; the server must fix the tool or its outputSchema, or create the Client with validateStructuredContent: false to accept its results unchecked`,
    );
    this.tool = tool;
    this.violations = violations;
    this.result = result;
  }
}

/** A list method walking every page (`all: true`) met more pages than allowed, or a cursor it had already sent. */
export class PaginationError extends SdkError {
  static readonly code = "ERR_PAGINATION";
  override readonly name = "PaginationError";
  readonly code = PaginationError.code;
  readonly method: string;
  readonly reason: "max_pages" | "cursor_loop";
  /** The pages received before stopping. */
  readonly pages: number;

  constructor(method: string, reason: "max_pages" | "cursor_loop", pages: number, maxPages: number) {
    super(
      reason === "max_pages"
        ? `${method} had more than ${maxPages} pages; raise maxPages, or page by hand with cursor and nextCursor`
        : `${method} answered page ${pages} with a nextCursor it had already given: the server's pagination loops, so listing stopped; the server must fix its cursors`,
    );
    this.method = method;
    this.reason = reason;
    this.pages = pages;
  }
}

/** A `subscriptions/listen` stream broke and could not be opened again within `maxReconnects` tries. */
export class SubscriptionLostError extends SdkError {
  static readonly code = "ERR_SUBSCRIPTION_LOST";
  override readonly name = "SubscriptionLostError";
  readonly code = SubscriptionLostError.code;
  /** Openings that failed in a row, the first one included. */
  readonly attempts: number;

  constructor(attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `The subscriptions/listen stream broke and ${attempts} attempts in a row to open it failed (last: ${reason}); check that the server is up, then call client.listen again and list what you follow, since changes may have been missed`,
      { cause },
    );
    this.attempts = attempts;
  }
}

/**
 * A skill file read back did not match what the skill's entry promised (its digest or size), was not
 * listed by the entry, or, for SKILL.md, carried front matter other than the entry's. Its content must
 * not be used.
 */
export class SkillIntegrityError extends SdkError {
  static readonly code = "ERR_SKILL_INTEGRITY";
  override readonly name = "SkillIntegrityError";
  readonly code = SkillIntegrityError.code;
  /** The file that failed. */
  readonly uri: string;
  readonly reason: "digest" | "size" | "frontmatter" | "unlisted" | "unreadable";

  constructor(uri: string, reason: SkillIntegrityError["reason"], detail: string) {
    super(`Skill file ${uri} failed verification (${reason}): ${detail}; its content was not used`);
    this.uri = uri;
    this.reason = reason;
  }
}
