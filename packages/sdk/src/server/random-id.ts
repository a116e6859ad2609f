import { randomFillSync } from "node:crypto";

/** One call into the CSPRNG fills a page: per id it would cost more than the round's AES-GCM. */
const PAGE_BYTES = 4096;
let page = Buffer.alloc(0);
let taken = 0;

/**
 * A fresh random id of `bytes` cryptographically secure bytes, spelt in `encoding`. Each byte of a
 * page is handed out once, so ids drawn from one page are as independent as separate draws.
 */
export function randomId(bytes: number, encoding: "hex" | "base64url"): string {
  if (bytes > PAGE_BYTES) return randomFillSync(Buffer.allocUnsafe(bytes)).toString(encoding);
  if (taken + bytes > page.length) {
    page = randomFillSync(Buffer.allocUnsafe(PAGE_BYTES));
    taken = 0;
  }
  taken += bytes;
  return page.toString(encoding, taken - bytes, taken);
}
