import { describe, expect, expectTypeOf, it } from "vitest";
import {
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
import { OAuthError, type OAuthErrorCode } from "./client/oauth/index.js";
import type { AnySdkError } from "./index.js";
import { McpError, SdkError, type SdkErrorCode } from "./protocol/index.js";
import {
  DownstreamTokenError,
  DpopNonceError,
  InvalidDpopProofError,
  InvalidTokenError,
} from "./server/auth/index.js";
import { InputResponseError, ToolError } from "./server/index.js";
import { ResolverFailure } from "./server/mcp-server/resolvers/resolver-failure.js";
import { HttpError } from "./server/transport/http-errors.js";

/**
 * The released codes, class by class. A code is part of the API: renaming one must fail here, not
 * slip out in a release, and the table is keyed by SdkErrorCode so that a code cannot be added or
 * dropped without it. Each row builds an instance, to check it carries its class's static code.
 */
type ErrorClass = { readonly code: string; readonly name: string };
const CLASSES: { [C in Exclude<SdkErrorCode, OAuthErrorCode>]: [ErrorClass, () => SdkError] } = {
  ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED: [
    InputRequiredRoundsExceededError,
    () => new InputRequiredRoundsExceededError("tools/call", 3),
  ],
  ERR_INPUT_REQUIRED_NOT_ALLOWED: [
    InputRequiredNotAllowedError,
    () => new InputRequiredNotAllowedError("tools/call"),
  ],
  ERR_INPUT_REQUEST_UNSUPPORTED: [
    InputRequestUnsupportedError,
    () => new InputRequestUnsupportedError("k", "roots/list", "register onListRoots"),
  ],
  ERR_INPUT_CALLBACK: [InputCallbackError, () => new InputCallbackError("k", "elicitation/create", "threw")],
  ERR_PROTOCOL_VIOLATION: [
    ProtocolViolationError,
    () => new ProtocolViolationError("tools/call", "no result"),
  ],
  ERR_TOOL_REJECTED: [ToolRejectedError, () => new ToolRejectedError("deploy", "a bad header")],
  ERR_TASK_CANCELLED: [TaskCancelledError, () => new TaskCancelledError("tools/call", undefined)],
  ERR_VERSION_NEGOTIATION: [VersionNegotiationError, () => new VersionNegotiationError(["1"], ["2"])],
  ERR_HTTP_STATUS: [
    HttpStatusError,
    () => new HttpStatusError(502, "Bad Gateway", new Headers(), "", "https://mcp.example.com/"),
  ],
  ERR_CONNECTION_FAILED: [
    ConnectionFailedError,
    () => new ConnectionFailedError("https://mcp.example.com/", new TypeError("fetch failed")),
  ],
  ERR_RESPONSE_STREAM_CLOSED: [ResponseStreamClosedError, () => new ResponseStreamClosedError("tools/call")],
  ERR_SESSION_EXPIRED: [SessionExpiredError, () => new SessionExpiredError("https://mcp.example.com/")],
  ERR_RESPONSE_TOO_LARGE: [
    ResponseTooLargeError,
    () => new ResponseTooLargeError("https://mcp.example.com/", "maxResponseBytes", 16),
  ],
  ERR_REDIRECT_REFUSED: [
    RedirectRefusedError,
    () => new RedirectRefusedError("https://mcp.example.com/", 307, "https://elsewhere.example/"),
  ],
  ERR_REQUEST_TIMEOUT: [
    RequestTimeoutError,
    () => new RequestTimeoutError("tools/call", 60_000, "requestTimeoutMs"),
  ],
  ERR_STRUCTURED_CONTENT: [
    StructuredContentError,
    () =>
      new StructuredContentError(
        "weather",
        { resultType: "complete", content: [] },
        "returned no structuredContent",
      ),
  ],
  ERR_SUBSCRIPTION_LOST: [SubscriptionLostError, () => new SubscriptionLostError(6, new Error("refused"))],
  ERR_PAGINATION: [PaginationError, () => new PaginationError("tools/list", "max_pages", 100, 100)],
  ERR_SKILL_INTEGRITY: [
    SkillIntegrityError,
    () => new SkillIntegrityError("skill://deploy/SKILL.md", "digest", "its digest differs"),
  ],
  ERR_INVALID_TOKEN: [InvalidTokenError, () => new InvalidTokenError("expired")],
  ERR_DOWNSTREAM_TOKEN: [DownstreamTokenError, () => new DownstreamTokenError("refused", "refused")],
  ERR_INPUT_RESPONSE: [InputResponseError, () => new InputResponseError("k", "not a form answer")],
  ERR_TOOL_FAILED: [ToolError, () => new ToolError("the deploy window is closed")],
  ERR_HTTP_REFUSED: [HttpError, () => new HttpError(405, "Method Not Allowed")],
  ERR_RESOLVER_FAILURE: [ResolverFailure, () => new ResolverFailure("declined")],
};
const CODES = Object.entries(CLASSES).map(([code, [errorClass, make]]) => [code, errorClass, make] as const);

/** OAuthError keeps one code per failure, as it had before the other errors got theirs. */
const OAUTH: Record<OAuthErrorCode, true> = {
  resource_metadata: true,
  resource_mismatch: true,
  authorization_server_metadata: true,
  unsupported: true,
  client_registration: true,
  client_issuer: true,
  authorization_response: true,
  access_denied: true,
  token_request: true,
  configuration: true,
  insecure_url: true,
};
const OAUTH_CODES = Object.keys(OAUTH) as OAuthErrorCode[];

describe("SDK error codes", () => {
  it.each(CODES)("%s is the code of its class and of every instance", (code, errorClass, make) => {
    const error = make();
    expect(errorClass.code).toBe(code);
    expect(error.code).toBe(code);
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(errorClass);
  });

  it("keeps each class's name", () => {
    for (const [, errorClass, make] of CODES) expect(make().name).toBe(errorClass.name);
  });

  it("gives OAuthError the code it was built with", () => {
    for (const code of OAUTH_CODES) {
      const error = new OAuthError(code, "m", { oauthError: "invalid_grant" });
      expect(error).toBeInstanceOf(SdkError);
      expect(error).toMatchObject({ name: "OAuthError", code, oauthError: "invalid_grant", message: "m" });
    }
  });

  it("never gives two classes, or two OAuth failures, the same code", () => {
    const all = [...CODES.map(([code]) => code), ...OAUTH_CODES];
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(CODES.map(([, errorClass]) => errorClass)).size).toBe(CODES.length);
  });

  it("has a row for every error class an entry point exports, McpError aside", async () => {
    const entries = await Promise.all([
      import("./index.js"),
      import("./protocol/index.js"),
      import("./server/index.js"),
      import("./client/index.js"),
      import("./server/fastify.js"),
      import("./server/auth/index.js"),
      import("./server/auth/fastify.js"),
      import("./client/oauth/index.js"),
    ]);
    const exported = new Set(
      entries
        .flatMap((entry) => Object.values(entry))
        .filter((value) => typeof value === "function" && value.prototype instanceof Error),
    );
    exported.delete(McpError);
    exported.delete(SdkError);
    const tabled = new Set<unknown>([...CODES.map(([, errorClass]) => errorClass), OAuthError]);
    // A refinement that keeps its parent's code (a DPoP refusal is an invalid token to a program) is
    // covered by the parent's row; one that brings a code of its own needs a row.
    const refinesTabled = (errorClass: unknown) =>
      [...tabled].some(
        (parent) =>
          typeof parent === "function" &&
          typeof errorClass === "function" &&
          errorClass.prototype instanceof parent &&
          (errorClass as unknown as ErrorClass).code === (parent as unknown as ErrorClass).code,
      );
    expect(
      [...exported].filter((errorClass) => !tabled.has(errorClass) && !refinesTabled(errorClass)),
    ).toEqual([]);
  });

  it("gives the DPoP refusals the code of the invalid token they refine", () => {
    expect(new InvalidDpopProofError("stale").code).toBe("ERR_INVALID_TOKEN");
    expect(new DpopNonceError("use the nonce", "n-1").code).toBe("ERR_INVALID_TOKEN");
    expect(new DpopNonceError("use the nonce", "n-1")).toBeInstanceOf(InvalidTokenError);
  });

  it("leaves McpError, the wire's error, outside: its code is the JSON-RPC number", () => {
    const error = McpError.invalidParams("bad");
    expect(error).not.toBeInstanceOf(SdkError);
    expect(error.code).toBe(-32602);
  });
});

describe("AnySdkError", () => {
  it("narrows to the class on its code", () => {
    const describe = (error: AnySdkError): string => {
      switch (error.code) {
        case "ERR_HTTP_STATUS":
          expectTypeOf(error).toEqualTypeOf<HttpStatusError>();
          return `status ${error.status}`;
        case "ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED":
          expectTypeOf(error).toEqualTypeOf<InputRequiredRoundsExceededError>();
          return `rounds ${error.maxRounds}`;
        case "ERR_TOOL_REJECTED":
          expectTypeOf(error).toEqualTypeOf<ToolRejectedError>();
          return `tool ${error.tool}`;
        case "token_request":
          expectTypeOf(error).toEqualTypeOf<OAuthError>();
          return `oauth ${error.oauthError}`;
        default:
          return error.code;
      }
    };
    expect(describe(new HttpStatusError(401, "Unauthorized", new Headers(), "", "https://x/"))).toBe(
      "status 401",
    );
    expect(describe(new ToolRejectedError("deploy", "a bad header"))).toBe("tool deploy");
    expect(describe(new OAuthError("token_request", "refused", { oauthError: "invalid_grant" }))).toBe(
      "oauth invalid_grant",
    );
  });

  it("covers every code a caller can meet; only the two internal ones are left out", () => {
    expectTypeOf<AnySdkError["code"]>().toEqualTypeOf<
      Exclude<SdkErrorCode, "ERR_HTTP_REFUSED" | "ERR_RESOLVER_FAILURE">
    >();
    expectTypeOf<AnySdkError>().toExtend<SdkError>();
  });
});
