import { createHash, randomBytes } from "node:crypto";
import { DevelopmentBrowser } from "./development-browser.js";
import { requestToken, type TokenResponse } from "./token-endpoint.js";

export interface AuthorizationCodeFlow {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  scope: string;
  /** The login typed into the development sign-in page. */
  user: string;
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/**
 * Runs authorization code + PKCE (S256) the way a browser and a native client would: a DevelopmentBrowser
 * signs in and consents on oidc-provider's development pages up to the redirect URI; the client's side
 * checks `state` and the RFC 9207 `iss` there and redeems the code with the verifier and `resource`.
 */
export async function authorizationCodeToken(flow: AuthorizationCodeFlow): Promise<TokenResponse> {
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  const state = base64url(randomBytes(16));
  const start = new URL(flow.authorizationEndpoint);
  start.search = new URLSearchParams({
    response_type: "code",
    client_id: flow.clientId,
    redirect_uri: flow.redirectUri,
    scope: flow.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: flow.resource,
  }).toString();

  const callback = await new DevelopmentBrowser(flow.user).redirectTo(start, flow.redirectUri);
  const code = codeFrom(callback, state, flow.issuer);
  return requestToken(flow.tokenEndpoint, {
    grant_type: "authorization_code",
    code,
    redirect_uri: flow.redirectUri,
    code_verifier: verifier,
    client_id: flow.clientId,
    resource: flow.resource,
  });
}

function codeFrom(callback: URL, state: string, issuer: string): string {
  const params = callback.searchParams;
  // RFC 9207: a response from another issuer is not acted on, not even its error fields.
  if (params.get("iss") !== issuer) {
    throw new Error(`authorization response names issuer ${params.get("iss")}, expected ${issuer}`);
  }
  if (params.get("state") !== state)
    throw new Error("authorization response state does not match the request");
  const error = params.get("error");
  if (error)
    throw new Error(`authorization refused: ${error} ${params.get("error_description") ?? ""}`.trim());
  const code = params.get("code");
  if (!code) throw new Error("authorization response carries no code");
  return code;
}
