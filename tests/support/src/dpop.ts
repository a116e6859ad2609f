import { createHash } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export type DpopKeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export function dpopKeyPair(): Promise<DpopKeyPair> {
  return generateKeyPair("ES256", { extractable: true });
}

/** The `ath` claim of a proof sent with `token`: its SHA-256, base64url. */
export function accessTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** A DPoP proof (RFC 9449) for `htu`; `claims` add to or replace the defaults (undefined drops one). */
export async function dpopProof(
  key: DpopKeyPair,
  htu: string,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const all: Record<string, unknown> = {
    htm: "POST",
    htu,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    ...claims,
  };
  for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
  return new SignJWT(all)
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(key.publicKey) })
    .sign(key.privateKey);
}

/**
 * A client-credentials token of the development authorization server's DPoP-bound client, bound to
 * `key` by the proof sent to its token endpoint.
 */
export async function dpopBoundToken(
  tokenEndpoint: string,
  resource: string,
  key: DpopKeyPair,
  scope = "mcp:tools",
): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from("mcp-machine-dpop:mcp-machine-dpop-secret").toString("base64")}`,
      dpop: await dpopProof(key, tokenEndpoint),
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
  });
  const body = (await response.json()) as { access_token?: string; token_type?: string };
  if (body.token_type !== "DPoP" || body.access_token === undefined) {
    throw new Error(`the token endpoint gave no DPoP-bound token: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
