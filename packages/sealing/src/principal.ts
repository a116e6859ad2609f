import { timingSafeEqual } from "node:crypto";
import { decodeBase64UrlCanonical } from "./base64url.js";
import { BoundedCache } from "./bounded-cache.js";
import { pythonJsonDumps } from "./canonical-json.js";
import type { RandomSource } from "./random-source.js";
import { sha256 } from "./sha256.js";
import { encodeUtf8SurrogatePass } from "./utf8.js";

/** Who is calling, as established by the transport's authentication (a validated access token). */
export interface RequestIdentity {
  readonly clientId?: string | null;
  readonly issuer?: string | null;
  readonly subject?: string | null;
}

/**
 * The default principal binding: the compact JSON triple `[clientId, issuer, subject]` (missing parts
 * as null), e.g. `["client-123","https://as.example","alice"]`, or null when the request carries no
 * identity. Two users of one client differ by subject; a verifier that omits the subject degrades the
 * binding to the client.
 */
export function authenticatedPrincipal(identity?: RequestIdentity | null): string | null {
  if (identity === undefined || identity === null) return null;
  const { clientId = null, issuer = null, subject = null } = identity;
  if (clientId === null && issuer === null && subject === null) return null;
  return pythonJsonDumps([clientId, issuer, subject], { sortKeys: false });
}

const SALT_BYTES = 8;
const DIGEST_BYTES = 16;
const LABEL = Buffer.from("mcp/request-state/principal:", "ascii");

/**
 * The `p` claim: `base64url_nopad(salt8 || SHA-256(label || salt8 || utf8(principal))[:16])`.
 * A hash rather than the principal itself, salted afresh per token so two tokens of one user
 * cannot be linked; the codec's encryption keeps even the hash from the client.
 */
export function principalClaim(principal: string, random: RandomSource): string {
  const salt = random(SALT_BYTES);
  return Buffer.concat([salt, principalDigest(salt, principal)]).toString("base64url");
}

/** True when `claim` is a well-formed `p` claim minted for exactly this principal. */
export function principalClaimMatches(claim: unknown, principal: string): boolean {
  if (typeof claim !== "string") return false;
  const raw = decodeBase64UrlCanonical(claim);
  if (raw === undefined || raw.length !== SALT_BYTES + DIGEST_BYTES) return false;
  const expected = principalDigest(raw.subarray(0, SALT_BYTES), principal);
  return timingSafeEqual(raw.subarray(SALT_BYTES), expected);
}

/**
 * Digests by salt and principal: the token a seal mints comes back on the retry, whose open then
 * needs the very digest the seal computed. A salt is fresh per token, so entries are only ever
 * reused that way, and a small cache holds every token in flight on a busy server.
 */
const digests = new BoundedCache<string, Buffer>(1024);

function principalDigest(salt: Uint8Array, principal: string): Buffer {
  // latin1 maps each salt byte to one char: the key is exact and needs no encoding pass.
  const key = `${Buffer.from(salt.buffer, salt.byteOffset, salt.byteLength).toString("latin1")}${principal}`;
  const known = digests.get(key);
  if (known !== undefined) return known;
  const digest = sha256(Buffer.concat([LABEL, salt, encodeUtf8SurrogatePass(principal)])).subarray(
    0,
    DIGEST_BYTES,
  );
  digests.set(key, digest);
  return digest;
}
