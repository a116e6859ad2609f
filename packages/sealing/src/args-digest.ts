import { pythonJsonDumps } from "./canonical-json.js";
import { GenerationalCache } from "./generational-cache.js";
import { sha256 } from "./sha256.js";

/**
 * Binds a token to the arguments of the call that minted it:
 * `base64url_nopad(SHA-256(canonical JSON of arguments)[:16])`, canonical as in the reference
 * (`json.dumps(arguments or {}, sort_keys=True, separators=(",", ":"))`). Missing or null
 * arguments digest as `{}`. The raw wire value is digested, before any validation, so a retry must
 * resend the arguments exactly as they were (`1` and `1.5` differ; key order does not matter).
 */
export function argumentsDigest(args: unknown): string {
  const json = isPythonFalsy(args) ? "{}" : pythonJsonDumps(args, { sortKeys: true });
  return digest(json);
}

/** The digest of `{}`: what resources/read always binds, and what absent arguments bind. */
export const EMPTY_ARGUMENTS_DIGEST = "RBNvo1WzZ4oRRq0W9-hkng";

/**
 * Digests by canonical text, so a retry's open finds the digest its round-one seal computed. Large
 * arguments are left out: they are rare, and keeping them would cost memory the hash does not.
 */
const digests = new GenerationalCache<string, string>(512);
const MAX_CACHED_CHARS = 1024;

function digest(json: string): string {
  const known = digests.get(json);
  if (known !== undefined) return known;
  const value = sha256(json).subarray(0, 16).toString("base64url");
  if (json.length <= MAX_CACHED_CHARS) digests.set(json, value);
  return value;
}

/** Python's `arguments or {}`: every falsy value counts as no arguments. */
function isPythonFalsy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return true;
  if (value === 0n) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isEmptyPlainObject(value);
}

function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.keys(value).length === 0;
}
