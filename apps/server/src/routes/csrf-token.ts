import { createHash } from "node:crypto";
import type { SealedValues } from "./sealed-values.js";

const CSRF = "roundtrip/approval-page/csrf";
const CSRF_TTL_S = 600;

const digestOf = (cookie: string) => createHash("sha256").update(cookie).digest("base64url");

/**
 * A form token for one page, sealed with the approver cookie's digest and the release inside, so it
 * is good for neither another viewer nor another release, on whichever instance the form posts to.
 */
export function csrfToken(sealed: SealedValues, cookie: string, release: string): string {
  return sealed.seal(CSRF, { c: digestOf(cookie), r: release }, CSRF_TTL_S);
}

export function csrfValid(sealed: SealedValues, token: unknown, cookie: string, release: string): boolean {
  if (typeof token !== "string") return false;
  const value = sealed.open(CSRF, token);
  return value?.c === digestOf(cookie) && value.r === release;
}
