import type { FastifyRequest } from "fastify";
import type { Approver } from "../approvals/approval-store.js";
import { cookiesOf, setCookie } from "./cookies.js";
import type { MessageSigner } from "./message-signer.js";

const APPROVER_COOKIE = "roundtrip_approver";
const APPROVER_TTL_S = 600;

const b64 = (value: string) => Buffer.from(value, "utf8").toString("base64url");
const unb64 = (value: string) => Buffer.from(value, "base64url").toString("utf8");

/** The signed-in approver as a cookie: `subject.issuer.expiry.signature`, the names base64url-encoded. */
export function approverCookie(
  signer: MessageSigner,
  approver: Approver,
  scope: { path: string; secure: boolean },
): string {
  const expiresAt = Math.floor(Date.now() / 1000) + APPROVER_TTL_S;
  const payload = `${b64(approver.subject)}.${b64(approver.issuer)}.${expiresAt}`;
  return setCookie(APPROVER_COOKIE, `${payload}.${signer.sign(`approver|${payload}`)}`, {
    ...scope,
    maxAgeS: APPROVER_TTL_S,
  });
}

/** The signed-in approver, if the cookie is this process's own, unexpired and intact. */
export function approverOf(
  signer: MessageSigner,
  request: FastifyRequest,
): (Approver & { cookie: string }) | undefined {
  const cookie = cookiesOf(request)[APPROVER_COOKIE];
  const parts = cookie?.split(".");
  if (cookie === undefined || parts?.length !== 4) return undefined;
  const [subject = "", issuer = "", expiry = "", signature = ""] = parts;
  if (!signer.verify(`approver|${subject}.${issuer}.${expiry}`, signature)) return undefined;
  if (!(Number(expiry) > Date.now() / 1000)) return undefined;
  return { subject: unb64(subject), issuer: unb64(issuer), cookie };
}
