import {
  type AuthorizationCodeEndpoints,
  type AuthorizationServerMetadata,
  authorizationCodeEndpoints,
  authorizationCodeFrom,
  checkResponseIssuer,
  discoverAuthorizationServer,
  OAuthError,
  requestToken,
  startAuthorization,
} from "@roundtrip/sdk/oauth-client";
import type { TokenVerifier } from "@roundtrip/sdk/resource-server";
import type { Approver } from "../approvals/approval-store.js";

/** How long a sign-in may take, from the start to the callback. */
export const SIGN_IN_TTL_S = 600;

export interface ApprovalSignInOptions {
  /** The authorization server whose users approve; its metadata gives the endpoints. */
  issuer: string;
  /** The public client (authorization code + PKCE) the page signs people in with. */
  clientId: string;
  /** The RFC 8707 resource the sign-in token is for: this server's canonical URI. */
  resource: string;
  scopes: readonly string[];
  /** The server's own access-token verifier: the approver is whoever the verified token names. */
  verifier: TokenVerifier;
  /** OAUTH_ALLOW_INSECURE_HTTP: accept the issuer's http endpoints (a local or compose setup only). */
  allowInsecureHttp: boolean;
}

interface Endpoints extends AuthorizationCodeEndpoints {
  /** RFC 9207: the issuer promises to name itself in every authorization response. */
  issRequired: boolean;
  metadata: AuthorizationServerMetadata;
}

/** A sign-in sent to the authorization server and not yet back: it rides in the browser's sealed cookie. */
export interface PendingLogin {
  state: string;
  release: string;
  codeVerifier: string;
  redirectUri: string;
}

export type SignInResult =
  | { outcome: "signed-in"; approver: Approver }
  /** The answer came from another issuer, or left out the iss its issuer promises: not acted on. */
  | { outcome: "other-issuer" }
  | { outcome: "not-completed" }
  | { outcome: "failed"; reason: string };

/**
 * The approval page's sign-in at the authorization server: authorization code with PKCE S256 and the
 * RFC 8707 resource, as a public client. Nothing is kept here between the start and the callback: the
 * pending sign-in goes to the browser sealed (see approval-sign-in-routes.ts), so the callback may land
 * on any instance, and a flood of starts fills no table.
 */
export class ApprovalSignIn {
  readonly #options: ApprovalSignInOptions;
  #endpoints: Promise<Endpoints> | undefined;

  constructor(options: ApprovalSignInOptions) {
    this.#options = options;
  }

  /** Where to send the browser, and the pending sign-in to hand it. */
  async start(release: string, redirectUri: string): Promise<{ url: URL; login: PendingLogin }> {
    const { authorizationEndpoint } = await this.#discover();
    const started = await startAuthorization(authorizationEndpoint, {
      clientId: this.#options.clientId,
      redirectUri,
      scope: ["openid", ...this.#options.scopes].join(" "),
      resource: this.#options.resource,
    });
    return {
      url: started.url,
      login: { state: started.state, release, codeVerifier: started.codeVerifier, redirectUri },
    };
  }

  async finish(login: PendingLogin, params: URLSearchParams): Promise<SignInResult> {
    const { metadata, issRequired } = await this.#discover();
    const { issuer, clientId, resource, verifier, allowInsecureHttp } = this.#options;
    try {
      checkResponseIssuer(params, { issuer, issRequired });
    } catch {
      return { outcome: "other-issuer" };
    }
    let callback: URLSearchParams;
    try {
      callback = authorizationCodeFrom(params, { issuer, issRequired, state: login.state });
    } catch {
      return { outcome: "not-completed" };
    }
    let accessToken: string;
    try {
      ({ accessToken } = await requestToken(
        metadata,
        { clientId, method: "none" },
        {
          grantType: "authorization_code",
          callback,
          redirectUri: login.redirectUri,
          codeVerifier: login.codeVerifier,
          resource,
        },
        { allowInsecureHttp },
      ));
    } catch (error) {
      if (error instanceof OAuthError) return { outcome: "failed", reason: error.message };
      throw error;
    }
    const principal = await verifier.verify(accessToken).catch(() => undefined);
    if (principal?.subject === undefined || principal.issuer !== issuer) {
      return { outcome: "failed", reason: "the token does not name a user of the issuer" };
    }
    const name = principal.claims?.name;
    return {
      outcome: "signed-in",
      approver: {
        subject: principal.subject,
        issuer: principal.issuer,
        ...(typeof name === "string" && name !== "" ? { name } : {}),
      },
    };
  }

  /** The SDK's discovery: the document must name exactly the configured issuer. A failure is retried. */
  #discover(): Promise<Endpoints> {
    if (!this.#endpoints) {
      const { issuer, allowInsecureHttp } = this.#options;
      const discovering = discoverAuthorizationServer(issuer, { allowInsecureHttp }).then((metadata) => ({
        ...authorizationCodeEndpoints(metadata, allowInsecureHttp),
        issRequired: metadata.authorization_response_iss_parameter_supported === true,
        metadata,
      }));
      discovering.catch(() => {
        this.#endpoints = undefined;
      });
      this.#endpoints = discovering;
    }
    return this.#endpoints;
  }
}
