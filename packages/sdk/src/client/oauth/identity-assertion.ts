import { fetchAuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { exchangeToken, TOKEN_TYPES } from "../../protocol/auth/token-exchange.js";
import { clientAuthentication } from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { OAuthError } from "./errors.js";
import type { OAuthRequestOptions } from "./oauth-library.js";
import { oauthFailure } from "./oauth-library.js";
import { checkTokenSource, readTokenSource, type TokenSource } from "./token-source.js";

/**
 * The enterprise identity provider of the identity assertion authorization grant (SEP-990): the user
 * signed in there once, and the client trades that sign-in for an ID-JAG per MCP server, with no
 * browser round trip.
 */
export interface IdentityAssertionOptions {
  /** The IdP's issuer identifier. */
  idpIssuer: string;
  /** The IdP's token endpoint; default: read from the IdP's metadata. */
  idpTokenEndpoint?: string;
  /** The client's id at the IdP (not the one at the MCP server's authorization server). */
  idpClientId: string;
  /** The client's secret at the IdP, sent with client_secret_basic; omit for a public client. */
  idpClientSecret?: string;
  /** The user's ID token from the IdP; a function can refresh it when it has expired. */
  idToken: TokenSource;
}

/** What the ID-JAG is for: the MCP server's authorization server, the MCP server, and the scopes. */
export interface IdentityAssertionTarget {
  /** The issuer of the MCP server's authorization server, the ID-JAG's audience. */
  audience: string;
  resource: string;
  scope?: string | undefined;
}

export function checkIdentityAssertionOptions(options: IdentityAssertionOptions | undefined): void {
  if (options === undefined) {
    throw new OAuthError(
      "configuration",
      "the identity_assertion grant needs identityAssertion: { idpIssuer, idpClientId, idToken } (the enterprise IdP the user signed in with)",
    );
  }
  for (const field of ["idpIssuer", "idpClientId"] as const) {
    if (typeof options[field] !== "string" || options[field] === "") {
      throw new OAuthError("configuration", `identityAssertion.${field} must be a non-empty string`);
    }
  }
  checkTokenSource(options.idToken, "identityAssertion.idToken");
}

/**
 * Exchanges the user's ID token at the IdP for an identity assertion JWT authorization grant (RFC 8693,
 * requested_token_type id-jag), which the client then presents to the MCP authorization server.
 */
export async function requestIdentityAssertion(
  options: IdentityAssertionOptions,
  target: IdentityAssertionTarget,
  http: OAuthRequestOptions,
): Promise<string> {
  const { idpIssuer, idpClientId, idpClientSecret } = options;
  const tokenEndpoint =
    options.idpTokenEndpoint ??
    (
      await fetchAuthorizationServerMetadata(idpIssuer, http).catch((error: unknown) => {
        throw new OAuthError(
          "authorization_server_metadata",
          `the identity provider ${idpIssuer} has no usable metadata (${(error as Error).message}); set identityAssertion.idpTokenEndpoint`,
          { cause: error },
        );
      })
    ).token_endpoint;
  const endpoint = endpointUrl(
    tokenEndpoint,
    "the identity provider's token_endpoint",
    http.allowInsecureHttp,
  );
  const idToken = await readTokenSource(options.idToken, "identityAssertion.idToken", http.signal);
  const method = idpClientSecret === undefined ? "none" : "client_secret_basic";
  const client = { clientId: idpClientId, clientSecret: idpClientSecret, method } as const;
  let exchanged: Awaited<ReturnType<typeof exchangeToken>>;
  try {
    exchanged = await exchangeToken(
      {
        server: { issuer: idpIssuer, token_endpoint: endpoint.href },
        clientId: idpClientId,
        clientAuthentication: clientAuthentication(client),
        ...http,
      },
      {
        subjectToken: idToken,
        subjectTokenType: TOKEN_TYPES.idToken,
        requestedTokenType: TOKEN_TYPES.idJag,
        audience: target.audience,
        resource: target.resource,
        ...(target.scope === undefined ? {} : { scope: target.scope }),
      },
    );
  } catch (error) {
    throw oauthFailure(
      error,
      "token_request",
      (summary, oauthError) =>
        `the identity provider ${idpIssuer} refused to exchange the user's ID token for an identity assertion grant (${summary})${oauthError === "invalid_grant" ? "; the ID token has expired or is not for this client: sign in to the identity provider again" : ""}`,
    );
  }
  if (exchanged.issuedTokenType !== TOKEN_TYPES.idJag) {
    throw new OAuthError(
      "unsupported",
      `the identity provider ${idpIssuer} issued a ${exchanged.issuedTokenType} token instead of an identity assertion grant (${TOKEN_TYPES.idJag})`,
    );
  }
  return exchanged.token;
}
