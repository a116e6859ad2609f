import { randomBytes } from "node:crypto";

/**
 * A release id: 128 random bits, so a release's approval URL cannot be guessed or enumerated, even
 * though the page only ever shows its details to the user who asked.
 */
export const RELEASE_ID = /^rel-[0-9a-f]{32}$/;

export function newRelease(): string {
  return `rel-${randomBytes(16).toString("hex")}`;
}
