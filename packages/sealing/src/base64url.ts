/**
 * Decodes unpadded base64url (the text form of our tokens and claims), or returns undefined unless
 * the text is the one canonical spelling of its bytes. Node's decoder skips junk, stops at padding
 * and ignores the spare bits of the last character, so many strings decode to the same bytes; only
 * the string that re-encoding reproduces exactly is accepted. That single comparison also refuses
 * every character outside the alphabet, since the encoder never emits one.
 */
export function decodeBase64UrlCanonical(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}
