import * as oauth from "oauth4webapi";
import { secureUrl } from "./secure-url.js";

/** RFC 8693 §2.1: the grant a client exchanges one token for another with. */
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
/** RFC 7523 §2.1: the grant a client presents a JWT assertion with (an ID-JAG, a workload's token). */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** The token type identifiers of RFC 8693 §3, and the identity assertion grant's (SEP-990). */
export const TOKEN_TYPES = {
  accessToken: "urn:ietf:params:oauth:token-type:access_token",
  idToken: "urn:ietf:params:oauth:token-type:id_token",
  jwt: "urn:ietf:params:oauth:token-type:jwt",
  idJag: "urn:ietf:params:oauth:token-type:id-jag",
} as const;

/** One RFC 8693 request: the token presented, and what the caller wants in exchange. */
export interface TokenExchangeRequest {
  subjectToken: string;
  subjectTokenType: string;
  requestedTokenType?: string;
  /** The logical name of the target service (RFC 8693 §2.1), such as an authorization server's issuer. */
  audience?: string;
  /** The URI of the target resource (RFC 8707). */
  resource?: string;
  scope?: string;
}

/** A successful exchange (RFC 8693 §2.2.1). */
export interface ExchangedToken {
  token: string;
  issuedTokenType: string;
  /** Lowercase: `bearer`, `dpop`, or `n_a` for a token that is not an access token (an ID-JAG). */
  tokenType: string;
  expiresIn?: number;
  scope?: string;
}

/** Where the exchange goes, who asks, and how the request travels. */
export interface TokenExchangeTarget {
  /** The authorization server performing the exchange: its issuer and token endpoint. */
  server: { issuer: string; token_endpoint: string };
  clientId: string;
  clientAuthentication: oauth.ClientAuth;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Allows http:// on hosts other than loopback (which always may use it). Never in production. */
  allowInsecureHttp?: boolean;
}

/**
 * Runs one RFC 8693 token exchange. A refusal or a malformed answer rejects with oauth4webapi's
 * errors (ResponseBodyError carries the server's `error`), for the caller to word for its side.
 */
export async function exchangeToken(
  target: TokenExchangeTarget,
  request: TokenExchangeRequest,
): Promise<ExchangedToken> {
  const endpoint = secureUrl(target.server.token_endpoint, "token_endpoint", target.allowInsecureHttp);
  const as: oauth.AuthorizationServer = { ...target.server, token_endpoint: endpoint.href };
  const client: oauth.Client = { client_id: target.clientId };
  const parameters = new URLSearchParams({
    subject_token: request.subjectToken,
    subject_token_type: request.subjectTokenType,
  });
  if (request.requestedTokenType !== undefined)
    parameters.set("requested_token_type", request.requestedTokenType);
  if (request.audience !== undefined) parameters.set("audience", request.audience);
  if (request.resource !== undefined) parameters.set("resource", request.resource);
  if (request.scope !== undefined) parameters.set("scope", request.scope);
  const response = await oauth.genericTokenEndpointRequest(
    as,
    client,
    target.clientAuthentication,
    TOKEN_EXCHANGE_GRANT,
    parameters,
    {
      [oauth.customFetch]: target.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      [oauth.allowInsecureRequests]: endpoint.protocol === "http:",
      signal: target.signal,
    },
  );
  // RFC 8693 §2.2.1: a token that is not an access token comes with token_type N_A.
  const answer = await oauth.processGenericTokenEndpointResponse(as, client, response, {
    recognizedTokenTypes: { n_a: () => {} },
  });
  const issuedTokenType = answer.issued_token_type;
  if (typeof issuedTokenType !== "string") {
    throw new oauth.OperationProcessingError(
      'the token exchange answer has no "issued_token_type" (RFC 8693 §2.2.1)',
    );
  }
  const exchanged: ExchangedToken = {
    token: answer.access_token,
    issuedTokenType,
    tokenType: answer.token_type,
  };
  if (answer.expires_in !== undefined && answer.expires_in > 0) exchanged.expiresIn = answer.expires_in;
  if (answer.scope !== undefined) exchanged.scope = answer.scope;
  return exchanged;
}
