/** An RFC 7636 proof key: the verifier stays with the client, the challenge goes to the authorization endpoint. */
export interface Pkce {
  verifier: string;
  challenge: string;
  method: "S256";
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** A fresh S256 proof key: a 43-character verifier from 32 random bytes, and its SHA-256 challenge. */
export async function createPkce(): Promise<Pkce> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: await pkceChallenge(verifier), method: "S256" };
}

export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** An unguessable `state` value for one authorization request. */
export function randomState(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(24)));
}
