import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { JWT_BEARER_GRANT } from "../../protocol/auth/token-exchange.js";
import { type ClientCredentials, clientAuthentication } from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { libraryOptions, type OAuthRequestOptions, oauthFailure } from "./oauth-library.js";

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  accessToken: string;
  /** Lowercase, as oauth4webapi normalizes it: `bearer`, or `dpop` for a DPoP-bound token. */
  tokenType: string;
  expiresIn?: number;
  refreshToken?: string;
  scope?: string;
}

export interface TokenRequestOptions extends OAuthRequestOptions {
  /** Sends a DPoP proof (RFC 9449 §5), so the server may bind the token to that key. */
  dpop?: oauth.DPoPHandle;
}

/** One grant, with the RFC 8707 resource the token is for. */
export type TokenGrant =
  | {
      grantType: "authorization_code";
      /** The redirect's parameters as `authorizationCodeFrom` validated them. */
      callback: URLSearchParams;
      /** The redirect URI of the authorization request, which the token endpoint compares. */
      redirectUri: string;
      codeVerifier: string;
      resource: string;
    }
  | { grantType: "refresh_token"; refreshToken: string; resource: string }
  | { grantType: "client_credentials"; resource: string; scope?: string | undefined }
  /** RFC 7523 §2.1: an assertion (an ID-JAG, a workload's identity token) presented for a token. */
  | { grantType: "jwt_bearer"; assertion: string; resource: string; scope?: string | undefined };

/**
 * Runs one grant at the server's token endpoint with the client's authentication and returns the
 * tokens. A refusal becomes an OAuthError carrying the server's error code (`invalid_grant` means the
 * code or refresh token is no longer good, `invalid_client` that the credentials are wrong).
 */
export async function requestToken(
  server: AuthorizationServerMetadata,
  client: ClientCredentials,
  grant: TokenGrant,
  options: TokenRequestOptions = {},
): Promise<TokenResponse> {
  const endpoint = endpointUrl(server.token_endpoint, "token_endpoint", options.allowInsecureHttp);
  const as = server as oauth.AuthorizationServer;
  const identity: oauth.Client = { client_id: client.clientId };
  const auth = clientAuthentication(client);
  const http = { ...libraryOptions(endpoint, options), DPoP: options.dpop };
  const withResource = { ...http, additionalParameters: { resource: grant.resource } };
  const exchange = async (): Promise<oauth.TokenEndpointResponse> => {
    switch (grant.grantType) {
      case "authorization_code": {
        const { callback, redirectUri, codeVerifier } = grant;
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          identity,
          auth,
          callback,
          redirectUri,
          codeVerifier,
          withResource,
        );
        return oauth.processAuthorizationCodeResponse(as, identity, response);
      }
      case "refresh_token": {
        const { refreshToken } = grant;
        const response = await oauth.refreshTokenGrantRequest(as, identity, auth, refreshToken, withResource);
        return oauth.processRefreshTokenResponse(as, identity, response);
      }
      case "client_credentials": {
        const parameters = new URLSearchParams({ resource: grant.resource });
        if (grant.scope !== undefined) parameters.set("scope", grant.scope);
        const response = await oauth.clientCredentialsGrantRequest(as, identity, auth, parameters, http);
        return oauth.processClientCredentialsResponse(as, identity, response);
      }
      case "jwt_bearer": {
        const parameters = new URLSearchParams({ assertion: grant.assertion, resource: grant.resource });
        if (grant.scope !== undefined) parameters.set("scope", grant.scope);
        const response = await oauth.genericTokenEndpointRequest(
          as,
          identity,
          auth,
          JWT_BEARER_GRANT,
          parameters,
          http,
        );
        return oauth.processGenericTokenEndpointResponse(as, identity, response);
      }
    }
  };
  let answer: oauth.TokenEndpointResponse;
  try {
    // A use_dpop_nonce refusal (RFC 9449 §8) left its nonce in the handle: the retry carries it.
    answer = await exchange().catch((error: unknown) => {
      if (options.dpop && oauth.isDPoPNonceError(error)) return exchange();
      throw error;
    });
  } catch (error) {
    throw oauthFailure(
      error,
      "token_request",
      (summary, oauthError) =>
        `the token endpoint ${endpoint.href} refused the ${grant.grantType} grant (${summary})${advice(grant.grantType, oauthError)}`,
    );
  }
  const tokens: TokenResponse = { accessToken: answer.access_token, tokenType: answer.token_type };
  if (answer.expires_in !== undefined && answer.expires_in > 0) tokens.expiresIn = answer.expires_in;
  if (answer.refresh_token) tokens.refreshToken = answer.refresh_token;
  if (answer.scope !== undefined) tokens.scope = answer.scope;
  return tokens;
}

function advice(grantType: TokenGrant["grantType"], oauthError: string | undefined): string {
  if (grantType === "jwt_bearer" && oauthError === "invalid_grant") {
    return "; the assertion has expired, names another audience, or comes from an issuer this authorization server does not trust";
  }
  return ADVICE.get(oauthError ?? "") ?? "";
}

/** What to do about the refusals a person can act on. */
const ADVICE = new Map(
  Object.entries({
    invalid_client:
      "; check the client id and secret (or private key), and the token endpoint authentication method",
    invalid_scope: "; the requested scope is not allowed for this client",
    invalid_target: "; the authorization server does not know this MCP server as a resource",
    invalid_grant: "; sign in again",
  }),
);
