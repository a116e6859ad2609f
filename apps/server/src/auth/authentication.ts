import type { IncomingMessage } from "node:http";
import {
  type AuthenticateHook,
  bearerAuth,
  DEFAULT_DPOP_ALGORITHMS,
  type DpopReplayStore,
  InvalidTokenError,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type TokenVerifier,
} from "@roundtrip/sdk/resource-server";
import { type AuthInfo, HttpError } from "@roundtrip/sdk/server";
import type { ServerConfig } from "../config/server-config.js";
import { BodyTools } from "./body-tools.js";
import { causeOf, type IssuerHealth } from "./issuer-health.js";
import { createTokenVerifier } from "./token-verifier.js";

export interface Authentication {
  /** The RFC 9728 document this server publishes. */
  metadata: ProtectedResourceMetadata;
  /** Its path-inserted URL, named in every challenge. */
  metadataUrl: string;
  /**
   * Verifies the request's bearer token once, whoever asks first (the rate limiter for its key, the
   * MCP transport for the principal): both get the same answer, and the token is checked only once.
   */
  authenticate: AuthenticateHook<IncomingMessage>;
  /**
   * Reads the tools a request's body calls, once Fastify has it. When one of them needs a scope of
   * its own, the verdict reached before the body was known is dropped, so that the transport's
   * authentication checks that scope too.
   */
  readBody(req: IncomingMessage, body: unknown): void;
}

export interface AuthenticationOptions {
  /** Replaces the verifier derived from the configuration. */
  verifier?: TokenVerifier;
  /** Told when a token could not be verified for want of the authorization server. */
  issuerHealth?: IssuerHealth;
  /** Where DPoP proof ids are claimed, shared by the fleet; default this process's memory. */
  dpopReplayStore?: DpopReplayStore;
}

/** A 503 the client may retry in a few seconds, naming what was away and why. */
function unavailable(what: string, cause: unknown): HttpError {
  return new HttpError(503, `Service unavailable: ${what} (${causeOf(cause)}); retry shortly`, {
    headers: { "retry-after": "5" },
  });
}

/**
 * A replay store that cannot answer has not judged the proof: 503, which the client may retry, and
 * never an acceptance of a proof that might be replayed (closed), nor a 401 that blames the client.
 */
function unavailableWhenAway(store: DpopReplayStore): DpopReplayStore {
  return {
    async claim(id, token, ttlMs) {
      try {
        return await store.claim(id, token, ttlMs);
      } catch (error) {
        throw unavailable(
          "the shared store of DPoP proofs (Redis) could not be reached to check the proof for replay",
          error,
        );
      }
    },
  };
}

/**
 * A verifier that could not reach the authorization server (its keys, its metadata, its introspection
 * endpoint) has not judged the token: that is 503 with the URL and the cause, which the client may
 * retry, never a 500, and never a 401 that would send the user to sign in again for nothing.
 */
function unavailableWhenUnreachable(
  verifier: TokenVerifier,
  issuer: string,
  health?: IssuerHealth,
): TokenVerifier {
  return {
    async verify(token) {
      try {
        return await verifier.verify(token);
      } catch (error) {
        // A verifier's own HTTP answer (introspection over capacity: 503) says the server is busy, not unreachable.
        if (error instanceof InvalidTokenError || error instanceof HttpError) throw error;
        health?.reportFailure(error);
        throw unavailable(
          `the authorization server ${health?.url ?? issuer} could not be reached to verify the access token`,
          error,
        );
      }
    },
  };
}

export function createAuthentication(
  config: ServerConfig,
  options: AuthenticationOptions = {},
): Authentication {
  const { auth } = config;
  const metadataUrl = protectedResourceMetadataUrl(config.publicUrl);
  const dpopRequired = auth.dpop === "require";
  const metadata = protectedResourceMetadata({
    resource: config.publicUrl,
    authorizationServers: [auth.issuer],
    scopesSupported: auth.requiredScopes,
    resourceName: config.serverName,
    ...(auth.dpop === "off"
      ? {}
      : { dpop: { signingAlgorithms: DEFAULT_DPOP_ALGORITHMS, boundTokensRequired: dpopRequired } }),
    allowInsecureHttp: auth.allowInsecureHttp,
  });
  const bodyTools = new BodyTools();
  // Own properties only: a tool named "constructor" or "__proto__" must find no scopes, not Object's.
  const scopesOfTools = (names: readonly string[]) =>
    names.flatMap((name) => (Object.hasOwn(auth.toolScopes, name) ? (auth.toolScopes[name] ?? []) : []));
  const check = bearerAuth<IncomingMessage>({
    verifier: unavailableWhenUnreachable(
      options.verifier ?? createTokenVerifier(auth),
      auth.issuer,
      options.issuerHealth,
    ),
    resourceMetadataUrl: metadataUrl,
    requiredScopes: auth.requiredScopes,
    toolScopes: auth.toolScopes,
    scopesForRequest: (_target, req) => scopesOfTools(bodyTools.of(req)),
    // Proofs name the URL clients call, PUBLIC_URL, whatever address this instance listens on.
    ...(auth.dpop === "off"
      ? {}
      : {
          dpop: {
            resourceUrl: config.publicUrl,
            required: dpopRequired,
            algorithms: DEFAULT_DPOP_ALGORITHMS,
            ...(options.dpopReplayStore ? { replayStore: unavailableWhenAway(options.dpopReplayStore) } : {}),
          },
        }),
  });
  const verdicts = new WeakMap<IncomingMessage, Promise<AuthInfo>>();
  const authenticate: AuthenticateHook<IncomingMessage> = (req) => {
    let verdict = verdicts.get(req);
    if (verdict === undefined) {
      verdict = check(req);
      verdicts.set(req, verdict);
    }
    return verdict;
  };
  const readBody = (req: IncomingMessage, body: unknown) => {
    if (scopesOfTools(bodyTools.note(req, body)).length > 0) verdicts.delete(req);
  };
  return { metadata, metadataUrl, authenticate, readBody };
}
