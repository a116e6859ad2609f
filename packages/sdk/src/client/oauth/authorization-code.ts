import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { endpointUrl } from "./endpoint-url.js";
import { OAuthError } from "./errors.js";
import { splitScope } from "./scope-selection.js";

export interface AuthorizationCodeEndpoints {
  authorizationEndpoint: URL;
  tokenEndpoint: URL;
}

/**
 * The two endpoints of the authorization code grant, checked before anything is sent: both must be
 * secure URLs, and the server must advertise PKCE S256, without which the MCP authorization spec
 * forbids proceeding.
 */
export function authorizationCodeEndpoints(
  server: AuthorizationServerMetadata,
  allowInsecureHttp = false,
): AuthorizationCodeEndpoints {
  if (!server.code_challenge_methods_supported?.includes("S256")) {
    throw new OAuthError(
      "unsupported",
      `the authorization server ${server.issuer} does not advertise PKCE S256 (code_challenge_methods_supported); the MCP authorization spec forbids proceeding without it`,
    );
  }
  const endpoint = (name: "authorization_endpoint" | "token_endpoint") =>
    endpointUrl(server[name], name, allowInsecureHttp);
  return {
    authorizationEndpoint: endpoint("authorization_endpoint"),
    tokenEndpoint: endpoint("token_endpoint"),
  };
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Undefined sends no scope parameter. */
  scope?: string | undefined;
  /** The RFC 8707 resource the token is for. */
  resource: string;
}

/** A request sent on its way: the caller keeps `state` and `codeVerifier` until the redirect returns. */
export interface StartedAuthorization {
  url: URL;
  state: string;
  codeVerifier: string;
}

/**
 * The authorization endpoint URL for one request, with a fresh state and S256 proof key (RFC 7636). The
 * caller redeems the code with `requestToken`, grant `authorization_code`.
 */
export async function startAuthorization(
  authorizationEndpoint: URL,
  request: AuthorizationRequest,
): Promise<StartedAuthorization> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  if (request.scope !== undefined) url.searchParams.set("scope", request.scope);
  // OpenID Connect servers grant offline_access only with an explicit consent prompt (OIDC Core §11).
  if (splitScope(request.scope).includes("offline_access")) url.searchParams.set("prompt", "consent");
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("resource", request.resource);
  return { url, state, codeVerifier };
}
