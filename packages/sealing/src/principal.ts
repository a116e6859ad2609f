import { timingSafeEqual } from "node:crypto";
import { decodeBase64UrlCanonical } from "./base64url.js";
import { pythonJsonDumps, pythonJsonString } from "./canonical-json.js";
import { GenerationalCache } from "./generational-cache.js";
import type { RandomSource } from "./random-source.js";
import { ScratchBytes } from "./scratch-bytes.js";
import { sha256 } from "./sha256.js";
import { encodeUtf8SurrogatePass, isWellFormed } from "./utf8.js";

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
  // It runs on every seal and open: strings and nulls, the usual parts, skip the general writer.
  if (isTextOrNull(clientId) && isTextOrNull(issuer) && isTextOrNull(subject)) {
    return `[${jsonTextOrNull(clientId)},${jsonTextOrNull(issuer)},${jsonTextOrNull(subject)}]`;
  }
  return pythonJsonDumps([clientId, issuer, subject], { sortKeys: false });
}

function isTextOrNull(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

/** What pythonJsonDumps writes for a string or null. */
function jsonTextOrNull(value: string | null): string {
  return value === null ? "null" : pythonJsonString(value);
}

const SALT_BYTES = 8;
const DIGEST_BYTES = 16;
const LABEL = Buffer.from("mcp/request-state/principal:", "ascii");
const SALT_START = LABEL.length;
const PRINCIPAL_START = SALT_START + SALT_BYTES;
/** The most UTF-8 bytes one UTF-16 unit can need (a surrogate pair is two units for four bytes). */
const MAX_UTF8_PER_UNIT = 3;

/**
 * The hash input `label || salt || utf8(principal)`, and the claim `salt || digest` before it is
 * encoded: laid out here instead of in fresh buffers, used and done with inside one call. They hold
 * only the salted principal, which the claim's hash already commits to.
 */
const hashInput = new ScratchBytes(256, 16 * 1024);
const claimBytes = Buffer.alloc(SALT_BYTES + DIGEST_BYTES);

/**
 * The `p` claim: `base64url_nopad(salt8 || SHA-256(label || salt8 || utf8(principal))[:16])`.
 * A hash rather than the principal itself, salted afresh per token so two tokens of one user
 * cannot be linked; the codec's encryption keeps even the hash from the client.
 */
export function principalClaim(principal: string, random: RandomSource): string {
  const salt = random(SALT_BYTES);
  claimBytes.set(salt, 0);
  claimBytes.set(principalDigest(salt, principal), SALT_BYTES);
  const claim = claimBytes.toString("base64url");
  minted.set(claim, principal);
  return claim;
}

/**
 * The principal each claim this process minted recently was minted for. The retry of a round
 * usually comes back to the instance that sealed it, and its open would recompute exactly the hash
 * the seal just computed: the claim is a function of salt and principal, so finding it here, minted
 * for this very principal, is the same verdict as recomputing it. Anything else is hashed again.
 * A claim is unique per token (its salt is fresh), so this holds the last 512 to 1024 minted.
 */
const minted = new GenerationalCache<string, string>(512);

/** True when `claim` is a well-formed `p` claim minted for exactly this principal. */
export function principalClaimMatches(claim: unknown, principal: string): boolean {
  if (typeof claim !== "string") return false;
  if (minted.get(claim) === principal) return true;
  const raw = decodeBase64UrlCanonical(claim);
  if (raw === undefined || raw.length !== SALT_BYTES + DIGEST_BYTES) return false;
  const expected = principalDigest(raw.subarray(0, SALT_BYTES), principal);
  return timingSafeEqual(raw.subarray(SALT_BYTES), expected);
}

/** The first 16 bytes of SHA-256(label || salt || utf8(principal)), lone surrogates kept (see utf8.ts). */
function principalDigest(salt: Uint8Array, principal: string): Buffer {
  let input = hashInput.take(PRINCIPAL_START + principal.length * MAX_UTF8_PER_UNIT);
  LABEL.copy(input, 0);
  input.set(salt, SALT_START);
  let end: number;
  if (isWellFormed(principal)) {
    end = PRINCIPAL_START + input.write(principal, PRINCIPAL_START, "utf8");
  } else {
    const bytes = encodeUtf8SurrogatePass(principal);
    bytes.copy(input, PRINCIPAL_START);
    end = PRINCIPAL_START + bytes.length;
  }
  input = input.subarray(0, end);
  return sha256(input).subarray(0, DIGEST_BYTES);
}
