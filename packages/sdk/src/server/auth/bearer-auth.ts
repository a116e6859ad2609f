import { type BearerChallenge, bearerChallenge } from "../../protocol/auth/challenge.js";
import type { AuthInfo } from "../auth-info.js";
import { HttpError } from "../transport/http-errors.js";
import type { RequestHead } from "../transport/request-head.js";
import { bearerCredentialsOf } from "./bearer-token.js";
import { InvalidTokenError } from "./errors.js";
import { type RequestTarget, requestTargetOf } from "./request-target.js";
import { missingScopes, ownEntry, type ScopeHierarchy, unique } from "./scopes.js";
import type { TokenVerifier } from "./token-verifier.js";

/** `Req` narrows what `scopesForRequest` is handed, e.g. to Node's IncomingMessage; the hook then serves the Node handler only. */
export interface BearerAuthOptions<Req extends RequestHead = RequestHead> {
  verifier: TokenVerifier;
  /** This server's RFC 9728 metadata URL, named in every challenge so clients can find the authorization server. */
  resourceMetadataUrl: string | URL;
  /** Scopes every request needs. */
  requiredScopes?: readonly string[];
  /** Extra scopes per tool, for tools/call, e.g. `{ deploy: ["mcp:deploy"] }`. */
  toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** Extra scopes for any request, decided from its target (method and name headers) or the request itself. */
  scopesForRequest?: (target: RequestTarget, req: Req) => readonly string[] | undefined;
  /** Scopes that imply others; a granted `mcp:admin` can then satisfy `mcp:deploy`. */
  scopeHierarchy?: ScopeHierarchy;
  /** Slack on AuthInfo.expiresAt for verifiers that do not check expiry themselves. Default 5 s. */
  clockToleranceSec?: number;
}

/**
 * The `authenticate` hook of createNodeHandler, createFetchHandler and mcpFastify. `target` is given
 * when the transport has read what the request addresses from its body: a 2025-era request names its
 * tool there only, with no `Mcp-Method`/`Mcp-Name` headers, so a tool's own scopes can only be
 * checked then. A hook on the default RequestHead serves every handler; one that needs Node's
 * IncomingMessage says so with `AuthenticateHook<IncomingMessage>` and serves the Node ones.
 */
export type AuthenticateHook<Req extends RequestHead = RequestHead> = (
  req: Req,
  target?: RequestTarget,
) => Promise<AuthInfo>;

/**
 * OAuth 2.1 bearer authentication for an MCP server (RFC 6750 + RFC 9728 challenges): no or a bad
 * token is 401 with a challenge naming the resource metadata and the scopes the request needs; a good
 * token without them is 403 `insufficient_scope` naming all of them, for a single step-up.
 */
export function bearerAuth<Req extends RequestHead = RequestHead>(
  options: BearerAuthOptions<Req>,
): AuthenticateHook<Req> {
  const resourceMetadata = new URL(options.resourceMetadataUrl).href;
  const tolerance = options.clockToleranceSec ?? 5;
  const refuse = (status: number, message: string, challenge: BearerChallenge) =>
    new HttpError(status, message, {
      headers: { "www-authenticate": bearerChallenge({ ...challenge, resourceMetadata }) },
    });

  const scopesNeeded = (req: Req, bodyTarget: RequestTarget | undefined): string[] => {
    const target = bodyTarget ?? requestTargetOf(req.headers);
    const forTool =
      target.method === "tools/call" && target.name !== undefined
        ? ownEntry(options.toolScopes, target.name, [])
        : [];
    return unique([
      ...(options.requiredScopes ?? []),
      ...forTool,
      ...(options.scopesForRequest?.(target, req) ?? []),
    ]);
  };

  return async (req, bodyTarget) => {
    const scope = scopesNeeded(req, bodyTarget);
    const credentials = bearerCredentialsOf(req);
    if (credentials.kind === "malformed") {
      throw refuse(400, credentials.problem, {
        error: "invalid_request",
        description: credentials.problem,
        scope,
      });
    }
    if (credentials.kind === "absent") {
      throw refuse(
        401,
        "Unauthorized: send an access token for this server as 'Authorization: Bearer <token>'; the resource metadata names the authorization server",
        { scope },
      );
    }
    let auth: AuthInfo;
    try {
      auth = await options.verifier.verify(credentials.token);
      if (auth.expiresAt !== undefined && auth.expiresAt + tolerance <= Date.now() / 1000) {
        throw new InvalidTokenError("The access token has expired");
      }
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      throw refuse(401, `Unauthorized: ${error.message}`, {
        error: "invalid_token",
        description: error.message,
        scope,
      });
    }
    const missing = missingScopes(auth.scopes, scope, options.scopeHierarchy);
    if (missing.length > 0) {
      const description = `This request needs scope '${scope.join(" ")}' and the access token lacks '${missing.join(" ")}'; obtain a token with all of them`;
      throw refuse(403, `Forbidden: ${description}`, { error: "insufficient_scope", description, scope });
    }
    return auth;
  };
}
