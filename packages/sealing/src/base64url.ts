const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** The 6-bit value of a base64url character already known to be in the alphabet. */
function sextet(code: number): number {
  if (code >= 97) return code - 71;
  if (code >= 65) return code - 65;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 45 ? 62 : 63;
}

/**
 * True when `text` is unpadded base64url and the one canonical spelling of its bytes. Node's decoder
 * skips junk, stops at padding and ignores the spare bits of the last character, so many strings
 * decode to the same bytes; the canonical one uses only the alphabet, has no length of 4n+1, and
 * leaves the spare bits zero, which is exactly the string that re-encoding the bytes reproduces,
 * checked without re-encoding.
 */
export function isCanonicalBase64Url(text: string): boolean {
  const tail = text.length % 4;
  if (tail === 1 || !ALPHABET.test(text)) return false;
  if (tail === 0) return true;
  const spareBits = tail === 2 ? 0x0f : 0x03;
  return (sextet(text.charCodeAt(text.length - 1)) & spareBits) === 0;
}

/** How many bytes canonical base64url text of this length decodes to. */
export function base64UrlDecodedLength(textLength: number): number {
  return Math.floor((textLength * 3) / 4);
}

/**
 * Decodes unpadded base64url (the text form of our tokens and claims), or returns undefined unless
 * the text is canonical (see isCanonicalBase64Url).
 */
export function decodeBase64UrlCanonical(text: string): Buffer | undefined {
  return isCanonicalBase64Url(text) ? Buffer.from(text, "base64url") : undefined;
}
