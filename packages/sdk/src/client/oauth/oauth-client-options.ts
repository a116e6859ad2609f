import { secureUrl } from "../../protocol/auth/secure-url.js";
import {
  type ClientPrivateKey,
  checkClientPrivateKey,
  type TokenEndpointAuthMethod,
} from "./client-authentication.js";
import { checkClientMetadataUrl } from "./client-registration.js";
import type { DpopOptions } from "./dpop-proofs.js";
import { OAuthError } from "./errors.js";
import { checkIdentityAssertionOptions, type IdentityAssertionOptions } from "./identity-assertion.js";
import { OAUTH_GRANTS, type OAuthGrant } from "./oauth-grants.js";
import type { OAuthRequestOptions } from "./oauth-library.js";
import { checkTokenSource, type TokenSource } from "./token-source.js";
import type { TokenStore } from "./token-store.js";

/** How the user agent reaches the authorization endpoint and comes back. */
export interface AuthorizationRedirect {
  /** Registered with the authorization server; a loopback `http://127.0.0.1:<port>/…` URL or an https one. */
  redirectUri: string;
  /**
   * Send the user agent to `url` (open a browser, or follow it in a test) and resolve with the query
   * parameters of the callback (code, state, iss, or error). The SDK creates state and PKCE, checks
   * state and iss, and exchanges the code.
   */
  authorize(url: URL, signal?: AbortSignal): Promise<URLSearchParams>;
}

/** `fetch` and `allowInsecureHttp` apply to every request to the authorization and resource servers. */
export interface OAuthClientOptions extends Omit<OAuthRequestOptions, "signal"> {
  /**
   * `authorization_code` acts for a user (needs `redirect`); `client_credentials` acts as the client
   * itself; `identity_assertion` acts for a user already signed in to an enterprise IdP (needs
   * `identityAssertion`, SEP-990); `workload_identity` acts as a workload with a platform-issued
   * identity token (needs `workloadIdentity`, RFC 7523).
   */
  grant: OAuthGrant;
  /** A pre-registered client; omit both for a client metadata document or dynamic registration. */
  clientId?: string;
  /** Needs `clientIssuer`: a secret is only ever sent to the authorization server that issued it. */
  clientSecret?: string;
  /**
   * The key of a pre-registered private_key_jwt client (RFC 7523): its token requests carry a signed
   * assertion instead of a secret. Set with clientId and clientIssuer; the method becomes private_key_jwt.
   */
  clientPrivateKey?: ClientPrivateKey;
  /**
   * The issuer identifier of the authorization server `clientId` is registered with, compared exactly
   * with the one the resource's metadata names. Required with `clientSecret` and `clientPrivateKey`;
   * with a public client id it keeps that id from being presented to any other authorization server too.
   */
  clientIssuer?: string;
  /** Used as client_id with authorization servers that advertise client_id_metadata_document_supported. */
  clientMetadataUrl?: string;
  /** Client metadata sent with dynamic registration (RFC 7591); merged over the defaults. */
  clientMetadata?: { client_name?: string; redirect_uris?: string[]; [field: string]: unknown };
  /** Default: chosen from the authorization server's token_endpoint_auth_methods_supported. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** Overrides scope selection (challenge scope, then the resource's scopes_supported). */
  scope?: string;
  /** Default: in memory, for the life of the process. */
  store?: TokenStore;
  /** Required for authorization_code. */
  redirect?: AuthorizationRedirect;
  /** How many 403 insufficient_scope step-ups one request may go through (default 2). */
  maxStepUps?: number;
  /**
   * Binds tokens to a key (DPoP, RFC 9449): token requests and every MCP request carry a proof, and
   * `use_dpop_nonce` refusals are retried with the server's nonce. `true` uses a key generated for the
   * life of the provider; give `{ keyPair }` to keep bound tokens usable across runs.
   */
  dpop?: boolean | DpopOptions;
  /**
   * For `identity_assertion`: the enterprise IdP where the user's ID token is exchanged for an ID-JAG
   * (RFC 8693), which the client presents to the MCP authorization server with the JWT bearer grant.
   */
  identityAssertion?: IdentityAssertionOptions;
  /** For `workload_identity`: where the workload's own identity token (a JWT) is read, for every grant. */
  workloadIdentity?: { token: TokenSource };
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
}

/** Refuses a configuration that could only fail later, in the middle of someone's request. */
export function checkOAuthClientOptions(options: OAuthClientOptions): void {
  const { grant, clientId, clientPrivateKey, clientIssuer, clientMetadataUrl, maxStepUps, redirect } =
    options;
  if (!(OAUTH_GRANTS as readonly string[]).includes(grant)) {
    refuse(
      `grant must be one of ${OAUTH_GRANTS.map((name) => `"${name}"`).join(", ")}, not ${JSON.stringify(grant)}`,
    );
  }
  if (grant === "identity_assertion") checkIdentityAssertionOptions(options.identityAssertion);
  if (grant === "workload_identity") {
    if (options.workloadIdentity === undefined) {
      refuse(
        'the workload_identity grant needs workloadIdentity: { token: { file: "<path>" } } or { token: () => token }',
      );
    }
    checkTokenSource(options.workloadIdentity.token, "workloadIdentity.token");
  }
  // An assertion is a credential for one authorization server: the ID-JAG names it as its audience and
  // a workload token is minted for it. Taken from the resource's metadata, a hostile MCP server could
  // name its own and replay what it is sent, so the issuer is configured, never discovered.
  if ((grant === "identity_assertion" || grant === "workload_identity") && clientIssuer === undefined) {
    refuse(
      `the ${grant} grant needs clientId and clientIssuer: the client pre-registered with the MCP server's authorization server, and that server's issuer, so the assertion is presented there and nowhere else`,
    );
  }
  if (clientPrivateKey !== undefined) checkClientPrivateKey(clientPrivateKey);
  for (const credential of ["clientSecret", "clientPrivateKey"] as const) {
    if (options[credential] === undefined) continue;
    if (clientId === undefined) {
      refuse(`${credential} is set without clientId: only a pre-registered client has one, set both`);
    }
    if (clientIssuer === undefined) {
      refuse(
        `${credential} is set without clientIssuer: set it to the issuer of the authorization server the client is registered with, so the credential is never used with another one`,
      );
    }
  }
  if (clientIssuer !== undefined) {
    if (clientId === undefined)
      refuse("clientIssuer is set without clientId: it says whose client that id is");
    checkSecureUrl(clientIssuer, "clientIssuer", options.allowInsecureHttp);
  }
  if (clientMetadataUrl !== undefined) checkClientMetadataUrl(clientMetadataUrl);
  if (maxStepUps !== undefined && !(Number.isInteger(maxStepUps) && maxStepUps >= 0)) {
    refuse("maxStepUps must be a whole number, 0 or more");
  }
  if (grant === "authorization_code") {
    if (!redirect) {
      refuse(
        "the authorization_code grant needs redirect: { redirectUri, authorize(url) } to send the user to the authorization server",
      );
    }
    checkSecureUrl(redirect.redirectUri, "redirectUri", options.allowInsecureHttp);
  }
}

function refuse(message: string, cause?: unknown): never {
  throw new OAuthError("configuration", message, { cause });
}

function checkSecureUrl(value: string, what: string, allowInsecureHttp: boolean | undefined): void {
  try {
    secureUrl(value, what, allowInsecureHttp);
  } catch (error) {
    refuse((error as Error).message, error);
  }
}
