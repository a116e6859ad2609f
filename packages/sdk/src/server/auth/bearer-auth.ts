import { type BearerChallenge, bearerChallenge } from "../../protocol/auth/challenge.js";
import type { AuthInfo } from "../auth-info.js";
import { HttpError } from "../transport/http-errors.js";
import type { RequestHead } from "../transport/request-head.js";
import { bearerCredentialsOf } from "./bearer-token.js";
import { type DpopChallenge, dpopChallenge } from "./dpop-challenge.js";
import { type DpopProofVerifierOptions, dpopProofVerifier } from "./dpop-proof.js";
import { DpopNonceError, InvalidDpopProofError, InvalidTokenError } from "./errors.js";
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
  /** Accept DPoP-bound access tokens (RFC 9449) presented as `Authorization: DPoP <token>` with a proof. */
  dpop?: BearerAuthDpopOptions;
}

export interface BearerAuthDpopOptions extends DpopProofVerifierOptions {
  /** Refuse plain bearer tokens: every request must present a DPoP-bound token with its proof. */
  required?: boolean;
}

/** The key a token is bound to (RFC 9449 §6: `cnf.jkt`, in JWT claims or an introspection answer). */
function boundThumbprint(auth: AuthInfo): string | undefined {
  const cnf = auth.claims?.cnf;
  if (typeof cnf !== "object" || cnf === null) return undefined;
  const jkt = (cnf as Record<string, unknown>).jkt;
  return typeof jkt === "string" ? jkt : undefined;
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
  const dpop = options.dpop === undefined ? undefined : dpopProofVerifier(options.dpop);
  const bearerAccepted = options.dpop?.required !== true;
  const provenKeys = new WeakMap<Req, { proof: string; thumbprint: string }>();
  /**
   * Each scheme this server accepts gets its challenge (RFC 9449 §7.1), so a client learns it may use
   * either; the one the client used carries the error, the other only says it is there.
   */
  const refuse = (
    status: number,
    message: string,
    challenge: BearerChallenge & { scope: readonly string[] },
    scheme: "bearer" | "dpop" | undefined,
    dpopError?: DpopChallenge["error"],
    nonce?: string,
  ) => {
    const challenges: string[] = [];
    if (bearerAccepted) {
      const own = scheme !== "dpop" ? challenge : { scope: challenge.scope };
      challenges.push(bearerChallenge({ ...own, resourceMetadata }));
    }
    if (dpop) {
      const own =
        scheme === "dpop" || !bearerAccepted
          ? { ...challenge, ...(dpopError === undefined ? {} : { error: dpopError }) }
          : { scope: challenge.scope };
      challenges.push(dpopChallenge({ ...own, resourceMetadata, algs: dpop.algorithms }));
    }
    const headers: Record<string, string> = { "www-authenticate": challenges.join(", ") };
    if (nonce !== undefined) headers["dpop-nonce"] = nonce;
    return new HttpError(status, message, { headers });
  };

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
      throw refuse(
        400,
        credentials.problem,
        { error: "invalid_request", description: credentials.problem, scope },
        undefined,
      );
    }
    // Without DPoP configured, a DPoP token is a scheme this server does not take: no credentials.
    if (credentials.kind === "absent" || (credentials.scheme === "dpop" && !dpop)) {
      const how = bearerAccepted
        ? "'Authorization: Bearer <token>'"
        : "'Authorization: DPoP <token>' with a DPoP proof";
      throw refuse(
        401,
        `Unauthorized: send an access token for this server as ${how}; the resource metadata names the authorization server`,
        { scope },
        undefined,
      );
    }
    const scheme = credentials.scheme;
    const invalid = (description: string, dpopError?: DpopChallenge["error"]) =>
      refuse(
        401,
        `Unauthorized: ${description}`,
        { error: "invalid_token", description, scope },
        scheme,
        dpopError,
      );
    if (scheme === "bearer" && !bearerAccepted) {
      throw invalid(
        "This server accepts only DPoP-bound access tokens; request one with a DPoP proof and send it as 'Authorization: DPoP <token>' with a proof",
      );
    }
    const proof = scheme === "dpop" ? req.headers.dpop : undefined;
    if (scheme === "dpop" && typeof proof !== "string") {
      throw invalid(
        proof === undefined
          ? "A DPoP access token needs a DPoP proof header; send one made for this request"
          : "Send exactly one DPoP proof header",
        "invalid_dpop_proof",
      );
    }
    let auth: AuthInfo;
    try {
      auth = await options.verifier.verify(credentials.token);
      if (auth.expiresAt !== undefined && auth.expiresAt + tolerance <= Date.now() / 1000) {
        throw new InvalidTokenError("The access token has expired");
      }
      const bound = boundThumbprint(auth);
      if (scheme === "bearer" && bound !== undefined) {
        // RFC 9449 §7.1: a stolen bound token must not work without the key by dropping to Bearer.
        throw new InvalidTokenError(
          "The access token is DPoP-bound; send it as 'Authorization: DPoP <token>' with a DPoP proof",
        );
      }
      if (dpop && typeof proof === "string") {
        if (bound === undefined) {
          throw new InvalidTokenError(
            "The access token is not DPoP-bound (no cnf.jkt); send it as a Bearer token",
          );
        }
        // A host may run the hook twice on one request (once more when the body names a tool with
        // scopes of its own); the second run must not see the request's own proof as a replay.
        const checked = provenKeys.get(req);
        if (checked?.proof !== proof || checked.thumbprint !== bound) {
          const thumbprint = await dpop.verify({
            proof,
            method: req.method ?? "GET",
            accessToken: credentials.token,
            boundThumbprint: bound,
          });
          provenKeys.set(req, { proof, thumbprint });
        }
      }
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      if (error instanceof DpopNonceError) {
        const description = error.message;
        throw refuse(
          401,
          `Unauthorized: ${description}`,
          { error: "invalid_token", description, scope },
          scheme,
          "use_dpop_nonce",
          error.nonce,
        );
      }
      throw invalid(error.message, error instanceof InvalidDpopProofError ? "invalid_dpop_proof" : undefined);
    }
    const missing = missingScopes(auth.scopes, scope, options.scopeHierarchy);
    if (missing.length > 0) {
      const description = `This request needs scope '${scope.join(" ")}' and the access token lacks '${missing.join(" ")}'; obtain a token with all of them`;
      throw refuse(
        403,
        `Forbidden: ${description}`,
        { error: "insufficient_scope", description, scope },
        scheme,
      );
    }
    return auth;
  };
}
