import { createPublicKey, randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

/** A private ES256 JWK with its key id, as an authorization server signs with. */
export type SigningKey = JWK & { kid: string; d: string };

/** Claims of a token the resource server would accept, which each negative case then spoils in one way. */
export function validClaims(issuer: string, audience: string): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    aud: audience,
    sub: "alice",
    client_id: "mcp-interactive",
    scope: "mcp:tools",
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
  };
}

/** Signs `claims` as an RFC 9068 access token with `key` (ES256), under the key's kid unless told otherwise. */
export function signAccessToken(key: SigningKey, claims: JWTPayload, kid: string = key.kid): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid }).sign(key);
}

/** An unsecured JWT (`alg: none`), which must never be taken as signed. */
export function unsignedToken(claims: JWTPayload, kid: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "at+jwt", kid })}.${part(claims)}.`;
}

/**
 * The algorithm-confusion attack: an HMAC "signature" keyed with the bytes of the authorization
 * server's public key, which a verifier that lets the token pick its algorithm would check successfully.
 */
export function publicKeyHmacToken(publicJwk: JWK, claims: JWTPayload, kid: string): Promise<string> {
  const pem = createPublicKey({ key: { ...publicJwk }, format: "jwk" })
    .export({ type: "spki", format: "pem" })
    .toString();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid })
    .sign(new TextEncoder().encode(pem));
}

/** A well-formed token from a key the authorization server never published. */
export async function unknownKeyToken(claims: JWTPayload): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  const stranger = { ...jwk, d: jwk.d ?? "", kid: await calculateJwkThumbprint(jwk) };
  return signAccessToken(stranger, claims);
}
