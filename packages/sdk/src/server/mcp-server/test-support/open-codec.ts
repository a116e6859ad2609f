import { InvalidRequestState, type RequestStateCodec, RequestStateSecurity } from "@roundtrip/sealing";

/**
 * A codec that authenticates nothing: tokens are the claims in base64url. Tests use it to read the
 * plaintext a server sealed and to forge "validly sealed" state, which is exactly what an attacker
 * holding the key could do; the boundary still checks expiry, binding and audience.
 */
const PREFIX = "open.";

export const openCodec: RequestStateCodec = {
  seal: (payload) => PREFIX + Buffer.from(payload).toString("base64url"),
  unseal: (token) => {
    if (!token.startsWith(PREFIX)) throw new InvalidRequestState("malformed");
    return new Uint8Array(Buffer.from(token.slice(PREFIX.length), "base64url"));
  },
};

export function openSecurity(): RequestStateSecurity {
  return new RequestStateSecurity({ codec: openCodec });
}

function claimsOf(token: string): Record<string, unknown> {
  if (!token.startsWith(PREFIX)) throw new Error(`not an open-codec token: ${token.slice(0, 12)}...`);
  return JSON.parse(Buffer.from(token.slice(PREFIX.length), "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

/** The plaintext state inside a token. */
export function plaintextOf(token: string): string {
  return String(claimsOf(token).s);
}

/** The same token with other plaintext inside: a forgery the codec cannot detect. */
export function withPlaintext(token: string, plaintext: string): string {
  const claims = { ...claimsOf(token), s: plaintext };
  return PREFIX + Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
}

/** The resolver state inside a token, parsed. */
export function resolverStateOf(token: string): {
  v: number;
  outcomes: Record<string, { action: string; data: unknown; q: string }>;
  asked: Record<string, string>;
} {
  return JSON.parse(plaintextOf(token));
}
