import type { ApprovalStore } from "../approvals/approval-store.js";
import type { ApprovalSignIn } from "./approval-sign-in.js";
import type { SealedValues } from "./sealed-values.js";

export const APPROVALS_PATH = "/approvals";
/** The sign-in redirect URI's path, on the public origin (infra/local's interactive client: loopback /callback). */
export const CALLBACK_PATH = "/callback";

/** What the page's routes share. Origins and cookie flags come from PUBLIC_URL, never from a request's Host. */
export interface ApprovalPageContext {
  approvals: ApprovalStore;
  sealed: SealedValues;
  signIn: ApprovalSignIn;
  /** The redirect URI registered at the issuer: PUBLIC_URL's origin + CALLBACK_PATH. */
  redirectUri: string;
  /** Cookies are Secure when PUBLIC_URL is https. */
  secure: boolean;
}
