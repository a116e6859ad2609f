import { randomUUID } from "node:crypto";
import { createLocalJWKSet, importJWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { publicJwk, type SigningKey } from "./keys.js";

/** The JWT `typ` of an identity assertion authorization grant (SEP-990). */
export const ID_JAG_TYP = "oauth-id-jag+jwt";

/** What an access token minted outside oidc-provider's own grants says: the RFC 9068 claims. */
export interface MintedAccessToken {
  subject: string;
  clientId: string;
  audience: string;
  scope: string | undefined;
  /** RFC 8693 §4.1: who acts for the subject (the MCP server, in a downstream exchange). */
  actor?: string;
  ttlSec: number;
}

/**
 * Signs the tokens of the grants oidc-provider has no model for (ID-JAGs, and the access tokens of the
 * JWT bearer and token exchange grants) with the server's current signing key, in the same RFC 9068
 * shape as its own access tokens, so a resource server cannot tell them apart.
 */
export class TokenMinter {
  readonly #issuer: string;
  readonly #keys: () => readonly SigningKey[];

  constructor(issuer: string, keys: () => readonly SigningKey[]) {
    this.#issuer = issuer;
    this.#keys = keys;
  }

  async accessToken(token: MintedAccessToken): Promise<string> {
    const claims: JWTPayload = { client_id: token.clientId };
    if (token.scope) claims.scope = token.scope;
    if (token.actor) claims.act = { sub: token.actor };
    return this.#sign(claims, "at+jwt", token.subject, token.audience, token.ttlSec);
  }

  /** An ID-JAG: who the user is, for which client, at which authorization server and resource. */
  identityAssertion(grant: {
    subject: string;
    clientId: string;
    audience: string;
    resource: string;
    scope: string | undefined;
    ttlSec: number;
  }): Promise<string> {
    const claims: JWTPayload = { client_id: grant.clientId, resource: grant.resource };
    if (grant.scope) claims.scope = grant.scope;
    return this.#sign(claims, ID_JAG_TYP, grant.subject, grant.audience, grant.ttlSec);
  }

  /** Verifies a token this server signed, with the `typ` (when it has one) and audience it must have. */
  async verifyOwn(token: string, typ?: string, audience?: string | string[]): Promise<JWTPayload> {
    const keys = createLocalJWKSet({ keys: this.#keys().map(publicJwk) });
    const { payload } = await jwtVerify(token, keys, {
      issuer: this.#issuer,
      ...(typ === undefined ? {} : { typ }),
      algorithms: ["ES256"],
      ...(audience === undefined ? {} : { audience }),
    });
    return payload;
  }

  async #sign(claims: JWTPayload, typ: string, subject: string, audience: string, ttlSec: number) {
    const [key] = this.#keys();
    if (!key) throw new Error("the authorization server has no signing key");
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", typ, kid: key.kid })
      .setIssuer(this.#issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${ttlSec}s`)
      .setJti(randomUUID())
      .sign(await importJWK(key, "ES256"));
  }
}
