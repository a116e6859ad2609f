import type { IncomingMessage } from "node:http";
import type { AuthInfo } from "@roundtrip/sdk";
import {
  type AuthenticateHook,
  bearerAuth,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type TokenVerifier,
} from "@roundtrip/sdk/auth";
import type { ServerConfig } from "../config/server-config.js";
import { BodyTools } from "./body-tools.js";
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
  authenticate: AuthenticateHook;
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
}

export function createAuthentication(
  config: ServerConfig,
  options: AuthenticationOptions = {},
): Authentication {
  const { auth } = config;
  const metadataUrl = protectedResourceMetadataUrl(config.publicUrl);
  const metadata = protectedResourceMetadata({
    resource: config.publicUrl,
    authorizationServers: [auth.issuer],
    scopesSupported: auth.requiredScopes,
    resourceName: config.serverName,
    allowInsecureHttp: auth.allowInsecureHttp,
  });
  const bodyTools = new BodyTools();
  const scopesOfTools = (names: readonly string[]) => names.flatMap((name) => auth.toolScopes[name] ?? []);
  const check = bearerAuth({
    verifier: options.verifier ?? createTokenVerifier(auth),
    resourceMetadataUrl: metadataUrl,
    requiredScopes: auth.requiredScopes,
    toolScopes: auth.toolScopes,
    scopesForRequest: (_target, req) => scopesOfTools(bodyTools.of(req)),
  });
  const verdicts = new WeakMap<IncomingMessage, Promise<AuthInfo>>();
  const authenticate: AuthenticateHook = (req) => {
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
