import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";

/** A private signing key as oidc-provider takes it: ES256 with `kid`, `alg` and `use` set. */
export type SigningKey = JWK & { kid: string; alg: "ES256"; use: "sig"; d: string };

/** A fresh ES256 key; the kid is its RFC 7638 thumbprint, so two keys never share one. */
export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  if (jwk.d === undefined) throw new Error("the generated ES256 key has no private part");
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, d: jwk.d, kid, alg: "ES256", use: "sig" };
}

/** The public half of a signing key, as the JWKS endpoint publishes it. */
export function publicJwk(key: SigningKey): JWK {
  const { d: _private, ...rest } = key;
  return rest;
}
