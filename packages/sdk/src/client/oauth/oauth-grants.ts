import { JWT_BEARER_GRANT } from "../../protocol/auth/token-exchange.js";

/** The ways the OAuth client obtains tokens, as `OAuthClientOptions.grant` names them. */
export const OAUTH_GRANTS = [
  "authorization_code",
  "client_credentials",
  "identity_assertion",
  "workload_identity",
] as const;

export type OAuthGrant = (typeof OAUTH_GRANTS)[number];

/** The RFC 7591 grant_types a client registers for `grant`. */
export function registeredGrantTypes(grant: OAuthGrant): string[] {
  switch (grant) {
    case "authorization_code":
      return ["authorization_code", "refresh_token"];
    case "client_credentials":
      return ["client_credentials"];
    case "identity_assertion":
    case "workload_identity":
      return [JWT_BEARER_GRANT];
  }
}
