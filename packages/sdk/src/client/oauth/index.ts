export type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
export type { AuthChallenge, ClientAuthProvider } from "../auth-provider.js";
export {
  type AuthorizationCodeEndpoints,
  type AuthorizationRequest,
  authorizationCodeEndpoints,
  type StartedAuthorization,
  startAuthorization,
} from "./authorization-code.js";
export {
  authorizationCodeFrom,
  checkResponseIssuer,
  type ExpectedAuthorizationResponse,
} from "./authorization-response.js";
export {
  type AuthorizationServerDiscoveryOptions,
  discoverAuthorizationServer,
} from "./authorization-server-discovery.js";
export type {
  ClientCredentials,
  ClientPrivateKey,
  TokenEndpointAuthMethod,
} from "./client-authentication.js";
export {
  type ClientRegistration,
  type RegistrationOptions,
  registerClient,
} from "./client-registration.js";
export type { DpopOptions } from "./dpop-proofs.js";
export { OAuthError, type OAuthErrorCode } from "./errors.js";
export type { IdentityAssertionOptions } from "./identity-assertion.js";
export type { AuthorizationRedirect, OAuthClientOptions } from "./oauth-client-options.js";
export { type OAuthClientProvider, oauthClientProvider } from "./oauth-client-provider.js";
export type { OAuthGrant } from "./oauth-grants.js";
export type { OAuthRequestOptions } from "./oauth-library.js";
export {
  type DiscoveredResourceMetadata,
  type DiscoveryOptions,
  discoverProtectedResource,
  type ProtectedResource,
} from "./protected-resource-discovery.js";
export { resourceCovers } from "./resource-match.js";
export {
  requestToken,
  type TokenGrant,
  type TokenRequestOptions,
  type TokenResponse,
} from "./token-request.js";
export { type RevocationOptions, revokeToken } from "./token-revocation.js";
export type { TokenSource } from "./token-source.js";
export { memoryTokenStore, type StoredTokens, type TokenStore, tokenStoreKey } from "./token-store.js";
