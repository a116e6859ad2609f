import { introspectionVerifier, jwtVerifier, type TokenVerifier } from "@roundtrip/sdk/resource-server";
import type { AuthConfig } from "../config/server-config.js";

/**
 * JWT access tokens are checked offline against the issuer's published keys; opaque ones, when an
 * introspection endpoint is configured, by asking the authorization server. Either way the audience
 * must be this server's canonical URI, so a token minted for another resource is refused.
 */
export function createTokenVerifier(auth: AuthConfig): TokenVerifier {
  if (auth.introspection !== undefined) {
    return introspectionVerifier({
      endpoint: auth.introspection.endpoint,
      clientId: auth.introspection.clientId,
      clientSecret: auth.introspection.clientSecret,
      audience: auth.audiences,
      issuer: auth.issuer,
      allowInsecureHttp: auth.allowInsecureHttp,
    });
  }
  return jwtVerifier({
    issuer: auth.issuer,
    audience: auth.audiences,
    ...(auth.jwksUri === undefined ? {} : { jwksUri: auth.jwksUri }),
    requiredTyp: auth.acceptPlainJwt ? "jwt" : "at+jwt",
    allowInsecureHttp: auth.allowInsecureHttp,
  });
}
