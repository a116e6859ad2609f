import { createHash, randomBytes } from "node:crypto";
import { CookieJar } from "./cookie-jar.js";
import { firstPostForm } from "./html-form.js";
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

/** The step bound keeps a misconfigured flow from bouncing between pages forever. */
const MAX_STEPS = 12;

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/**
 * Runs authorization code + PKCE (S256) the way a browser and a native client would: follows the
 * redirects, signs in and consents on oidc-provider's development pages with a cookie jar, checks
 * `state` and the RFC 9207 `iss` on the callback, then redeems the code with the verifier and `resource`.
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

  const code = await walkToCallback(flow, start, state);
  return requestToken(flow.tokenEndpoint, {
    grant_type: "authorization_code",
    code,
    redirect_uri: flow.redirectUri,
    code_verifier: verifier,
    client_id: flow.clientId,
    resource: flow.resource,
  });
}

async function walkToCallback(flow: AuthorizationCodeFlow, start: URL, state: string): Promise<string> {
  const jar = new CookieJar();
  let url = start;
  let init: RequestInit = {};
  let signedIn = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await jar.fetch(url, init);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (isCallback(next, flow.redirectUri)) return codeFrom(next, state, flow.issuer);
      url = next;
      init = {};
      continue;
    }
    const page = await response.text();
    const form = response.status === 200 ? firstPostForm(page) : undefined;
    if (!form) {
      throw new Error(
        `authorization flow stopped at ${url.pathname} with HTTP ${response.status}: ${summary(page)}`,
      );
    }
    if (form.fields.prompt === "login") {
      // A second sign-in page means the account lookup refused the login just typed.
      if (signedIn) throw new Error(`user "${flow.user}" is not an account of this authorization server`);
      form.fields.login = flow.user;
      form.fields.password = "development";
      signedIn = true;
    }
    url = new URL(form.action, url);
    init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form.fields),
    };
  }
  throw new Error(`authorization flow did not reach ${flow.redirectUri} within ${MAX_STEPS} steps`);
}

function isCallback(url: URL, redirectUri: string): boolean {
  const expected = new URL(redirectUri);
  return (
    url.protocol === expected.protocol &&
    url.hostname === expected.hostname &&
    url.pathname === expected.pathname
  );
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

function summary(page: string): string {
  return page
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
}
