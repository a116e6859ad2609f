import { MIN_KEY_BYTES } from "./keys.js";

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
/**
 * Fewer distinct byte values than this in 32 or more random bytes has odds far below 2^-100: such a
 * secret was typed (`a3a3…`, `0000…`), not drawn.
 */
const MIN_DISTINCT_BYTES = 12;

/**
 * Why a configured secret is too weak to seal with, or undefined when it is fine. For operators'
 * settings (key files, environment), where a secret is written as text: it must be the hex or
 * base64 of at least 32 random-looking bytes, as `openssl rand -hex 32` prints. The ring itself still
 * uses the text's UTF-8 bytes, as the reference implementation does; this only refuses placeholders.
 */
export function weakSecretReason(text: string): string | undefined {
  const bytes = decodedSecret(text);
  if (bytes === undefined) return "is neither hex nor base64";
  if (bytes.length < MIN_KEY_BYTES) {
    return `decodes to ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are needed`;
  }
  const distinct = new Set(bytes).size;
  if (distinct < MIN_DISTINCT_BYTES) return `uses only ${distinct} distinct byte values: it is not random`;
  return undefined;
}

function decodedSecret(text: string): Buffer | undefined {
  if (HEX.test(text)) return Buffer.from(text, "hex");
  if (BASE64.test(text)) return Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return undefined;
}
