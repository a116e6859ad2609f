import { hash } from "node:crypto";
import { sortedKeysJson } from "@roundtrip/sealing";

/**
 * What a once-round's answers were: recorded with its outcome, so that a repeat with other
 * inputResponses is refused instead of being handed the first outcome. Key order does not matter: a
 * retry built by another JSON library digests the same.
 *
 * The digest is stored with the sealed outcome (the once store: Redis for a fleet) and compared by
 * whichever instance serves the repeat, which during a rolling upgrade may run another release. So
 * its text stays what earlier releases digested, `JSON.stringify`'s with sorted keys, and not the
 * Python form the tokens use (`\u00e9`, `1e-07`, code-point order): a digest that changed form would
 * refuse every repeat of a round whose answers hold non-ASCII text or a small float.
 */
export function answersDigest(inputResponses: unknown): string {
  // One-shot: a Hash object per round cost more than hashing its few hundred bytes.
  return hash("sha256", sortedKeysJson(inputResponses ?? null), "base64url");
}
