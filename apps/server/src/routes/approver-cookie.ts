import type { FastifyRequest } from "fastify";
import type { Approver } from "../approvals/approval-store.js";
import { cookiesOf, setCookie } from "./cookies.js";
import type { SealedValues } from "./sealed-values.js";

const APPROVER_COOKIE = "roundtrip_approver";
const APPROVER = "roundtrip/approval-page/approver";
const APPROVER_TTL_S = 600;

/** The signed-in approver as a sealed cookie, good on every instance that shares the keys. */
export function approverCookie(
  sealed: SealedValues,
  approver: Approver,
  scope: { path: string; secure: boolean },
): string {
  const { subject, issuer, name } = approver;
  const value = sealed.seal(
    APPROVER,
    { subject, issuer, ...(name === undefined ? {} : { name }) },
    APPROVER_TTL_S,
  );
  return setCookie(APPROVER_COOKIE, value, { ...scope, maxAgeS: APPROVER_TTL_S });
}

/** The signed-in approver, if the cookie is intact and unexpired. */
export function approverOf(
  sealed: SealedValues,
  request: FastifyRequest,
): (Approver & { cookie: string }) | undefined {
  const cookie = cookiesOf(request)[APPROVER_COOKIE];
  const value = sealed.open(APPROVER, cookie);
  if (cookie === undefined || typeof value?.subject !== "string" || typeof value.issuer !== "string") {
    return undefined;
  }
  const name = typeof value.name === "string" ? { name: value.name } : {};
  return { subject: value.subject, issuer: value.issuer, ...name, cookie };
}
