import type { TokenVerifier } from "@roundtrip/sdk/auth";
import {
  type AuthorizationCodeEndpoints,
  authorizationCodeEndpoints,
  checkResponseIssuer,
  discoverAuthorizationServer,
  OAuthError,
  redeemAuthorizationCode,
  startAuthorization,
} from "@roundtrip/sdk/oauth";
import type { Approver } from "../approvals/approval-store.js";

/** How long a sign-in may take, from the start to the callback. */
export const SIGN_IN_TTL_S = 600;
const MAX_LOGINS = 1_000;

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
}

interface Endpoints extends AuthorizationCodeEndpoints {
  /** RFC 9207: the issuer promises to name itself in every authorization response. */
  issRequired: boolean;
}

/** A sign-in sent to the authorization server and not yet back. */
export interface PendingLogin {
  release: string;
  codeVerifier: string;
  redirectUri: string;
  expiresAt: number;
}

export type SignInResult =
  | { outcome: "signed-in"; approver: Approver }
  /** The answer came from another issuer, or left out the iss its issuer promises: not acted on. */
  | { outcome: "other-issuer" }
  | { outcome: "not-completed" }
  | { outcome: "failed"; reason: string };

/**
 * The approval page's sign-in at the authorization server: authorization code with PKCE S256 and the
 * RFC 8707 resource, as a public client. Pending sign-ins live in this process, keyed by state, for
 * SIGN_IN_TTL_S at the most; at most MAX_LOGINS at once, so a flood of starts cannot grow them.
 */
export class ApprovalSignIn {
  readonly #options: ApprovalSignInOptions;
  readonly #logins = new Map<string, PendingLogin>();
  #endpoints: Promise<Endpoints> | undefined;

  constructor(options: ApprovalSignInOptions) {
    this.#options = options;
  }

  /** Where to send the browser and the state to bind to it; undefined when too many are pending. */
  async start(release: string, redirectUri: string): Promise<{ url: URL; state: string } | undefined> {
    const { authorizationEndpoint } = await this.#discover();
    const now = Date.now();
    for (const [state, login] of this.#logins) if (login.expiresAt <= now) this.#logins.delete(state);
    if (this.#logins.size >= MAX_LOGINS) return undefined;
    const started = await startAuthorization(authorizationEndpoint, {
      clientId: this.#options.clientId,
      redirectUri,
      scope: ["openid", ...this.#options.scopes].join(" "),
      resource: this.#options.resource,
    });
    this.#logins.set(started.state, {
      release,
      codeVerifier: started.codeVerifier,
      redirectUri,
      expiresAt: now + SIGN_IN_TTL_S * 1000,
    });
    return { url: started.url, state: started.state };
  }

  /**
   * The pending sign-in the callback's state names, taken so it cannot be answered twice. One this
   * browser did not start (its state cookie differs) stays pending for the browser that did.
   */
  take(state: string | null, browserState: string | undefined): PendingLogin | undefined {
    const login = state === null ? undefined : this.#logins.get(state);
    if (state === null || !login || browserState !== state || login.expiresAt <= Date.now()) return undefined;
    this.#logins.delete(state);
    return login;
  }

  async finish(login: PendingLogin, params: URLSearchParams): Promise<SignInResult> {
    const { tokenEndpoint, issRequired } = await this.#discover();
    const { issuer, clientId, resource, verifier } = this.#options;
    try {
      checkResponseIssuer(params, { issuer, issRequired });
    } catch {
      return { outcome: "other-issuer" };
    }
    const code = params.get("code");
    if (code === null) return { outcome: "not-completed" };
    let accessToken: string;
    try {
      ({ accessToken } = await redeemAuthorizationCode(
        tokenEndpoint,
        { code, redirectUri: login.redirectUri, codeVerifier: login.codeVerifier, resource },
        { clientId, method: "none" },
      ));
    } catch (error) {
      if (error instanceof OAuthError) return { outcome: "failed", reason: error.message };
      throw error;
    }
    const principal = await verifier.verify(accessToken).catch(() => undefined);
    if (principal?.subject === undefined || principal.issuer !== issuer) {
      return { outcome: "failed", reason: "the token does not name a user of the issuer" };
    }
    return { outcome: "signed-in", approver: { subject: principal.subject, issuer: principal.issuer } };
  }

  /** The SDK's discovery: the document must name exactly the configured issuer. A failure is retried. */
  #discover(): Promise<Endpoints> {
    if (!this.#endpoints) {
      const discovering = discoverAuthorizationServer(this.#options.issuer).then((metadata) => ({
        ...authorizationCodeEndpoints(metadata),
        issRequired: metadata.authorization_response_iss_parameter_supported === true,
      }));
      discovering.catch(() => {
        this.#endpoints = undefined;
      });
      this.#endpoints = discovering;
    }
    return this.#endpoints;
  }
}
