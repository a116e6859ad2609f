import { randomBytes } from "node:crypto";
import type { MessageSigner } from "./message-signer.js";

/**
 * A form token for one page: a fresh nonce, bound by the signature to the approver cookie and the
 * release, so it is good for neither another viewer nor another release.
 */
export function csrfToken(signer: MessageSigner, cookie: string, release: string): string {
  const nonce = randomBytes(16).toString("base64url");
  return `${nonce}.${signer.sign(`csrf|${nonce}|${cookie}|${release}`)}`;
}

export function csrfValid(signer: MessageSigner, token: unknown, cookie: string, release: string): boolean {
  if (typeof token !== "string") return false;
  const [nonce = "", signature = "", ...rest] = token.split(".");
  return rest.length === 0 && nonce !== "" && signer.verify(`csrf|${nonce}|${cookie}|${release}`, signature);
}
