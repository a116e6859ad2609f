export {
  type AuthorizationServerMetadata,
  fetchAuthorizationServerMetadata,
  type MetadataFetchOptions,
} from "../../protocol/auth/authorization-server-metadata.js";
export { type BearerChallenge, bearerChallenge } from "../../protocol/auth/challenge.js";
export {
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataOptions,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from "../../protocol/auth/resource-metadata.js";
export type { AuthInfo } from "../auth-info.js";
export {
  type AuthenticateHook,
  type BearerAuthDpopOptions,
  type BearerAuthOptions,
  bearerAuth,
} from "./bearer-auth.js";
export { authInfoFromClaims } from "./claims.js";
export { DownstreamTokenError, type DownstreamTokenFailure } from "./downstream-token-error.js";
export { type Downstream, DownstreamTokens, type DownstreamTokensOptions } from "./downstream-tokens.js";
export {
  DEFAULT_DPOP_ALGORITHMS,
  type DpopProofInput,
  type DpopProofVerifier,
  type DpopProofVerifierOptions,
  type DpopReplayStore,
  dpopProofVerifier,
} from "./dpop-proof.js";
export { DpopNonceError, InvalidDpopProofError, InvalidTokenError } from "./errors.js";
export { type IntrospectionVerifierOptions, introspectionVerifier } from "./introspection-verifier.js";
export { DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions, jwtVerifier } from "./jwt-verifier.js";
export type { RequestTarget } from "./request-target.js";
export {
  protectedResourceMetadataHandler,
  type ResourceMetadataHandler,
  type ResourceMetadataHandlerOptions,
} from "./resource-metadata-handler.js";
export { grantedScopes, missingScopes, type ScopeHierarchy } from "./scopes.js";
export type { TokenVerifier } from "./token-verifier.js";
