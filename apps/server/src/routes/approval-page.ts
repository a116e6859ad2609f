import type { FastifyInstance } from "fastify";
import type { ApprovalStore } from "../approvals/approval-store.js";
import { registerAddressRateLimit } from "../http/rate-limit.js";
import { gateOnKeyring } from "../http/readiness-gate.js";
import type { Keyring } from "../keyring/keyring.js";
import { CALLBACK_PATH } from "./approval-page-context.js";
import { registerReleaseRoutes } from "./approval-release-routes.js";
import { ApprovalSignIn, type ApprovalSignInOptions } from "./approval-sign-in.js";
import { registerSignInRoutes } from "./approval-sign-in-routes.js";
import { SealedValues } from "./sealed-values.js";

export { APPROVALS_PATH, CALLBACK_PATH } from "./approval-page-context.js";

export interface ApprovalPageOptions extends ApprovalSignInOptions {
  approvals: ApprovalStore;
  /** Seals the page's cookies and form tokens; its codec is the request-state keys' (shared by the fleet). */
  keyring: Pick<Keyring, "status" | "codec">;
  /** PUBLIC_URL: the origin of the redirect URI and whether cookies are Secure. */
  publicUrl: string;
  /** Per client address, for the page and the callback: anyone may open them without a token. */
  rateLimit: { max: number; windowMs: number };
}

/**
 * The page the deploy tool's URL-mode elicitation points at: the viewer signs in at the authorization
 * server (authorization code + PKCE S256), and only the user who asked for the deployment (same issuer
 * and subject) sees the release and its Approve button; the approval goes to the store, where the
 * deploy tool looks for it. Everything it hands the browser is sealed under the request-state keys,
 * so every instance of a fleet serves every step of it.
 */
export async function registerApprovalPage(
  app: FastifyInstance,
  options: ApprovalPageOptions,
): Promise<void> {
  const publicUrl = new URL(options.publicUrl);
  const context = {
    approvals: options.approvals,
    sealed: new SealedValues(options.keyring.codec),
    signIn: new ApprovalSignIn(options),
    redirectUri: new URL(CALLBACK_PATH, publicUrl.origin).href,
    secure: publicUrl.protocol === "https:",
  };
  await app.register(async (scope) => {
    // Nothing can be sealed or opened before the keys are in.
    gateOnKeyring(scope, options.keyring);
    await registerAddressRateLimit(scope, options.rateLimit);
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    registerReleaseRoutes(scope, context);
    registerSignInRoutes(scope, context);
  });
}
