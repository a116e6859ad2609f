import { randomFillSync } from "node:crypto";
import { startupSnapshot } from "node:v8";

/** One call into the CSPRNG fills a page: per id it would cost more than the round's AES-GCM. */
const PAGE_BYTES = 4096;
// Memory of its own: `allocUnsafe` would carve it from the pool other small buffers share, and
// unissued ids would sit in memory that code holding those buffers could read.
const page = Buffer.alloc(PAGE_BYTES);
let taken = PAGE_BYTES;

// A process started from a startup snapshot would otherwise hand out the ids left in the page when
// the snapshot was taken, the same in every process started from it.
if (startupSnapshot.isBuildingSnapshot()) {
  startupSnapshot.addSerializeCallback(() => {
    page.fill(0);
    taken = PAGE_BYTES;
  });
}

/**
 * A fresh random id of `bytes` cryptographically secure bytes, spelt in `encoding`, for ids minted
 * on every round (flows, once rounds, bridge questions). Each byte of a page is handed out once, so
 * ids drawn from one page are as independent as separate draws.
 */
export function randomId(bytes: number, encoding: "hex" | "base64url"): string {
  if (bytes > PAGE_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString(encoding);
  if (taken + bytes > PAGE_BYTES) {
    randomFillSync(page);
    taken = 0;
  }
  taken += bytes;
  return page.toString(encoding, taken - bytes, taken);
}
