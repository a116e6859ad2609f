import type { FastifyInstance } from "fastify";
import { RELEASE_ID } from "../approvals/release-id.js";
import { APPROVALS_PATH, type ApprovalPageContext, CALLBACK_PATH } from "./approval-page-context.js";
import { type PendingLogin, SIGN_IN_TTL_S } from "./approval-sign-in.js";
import { approverCookie } from "./approver-cookie.js";
import { cookiesOf, setCookie } from "./cookies.js";
import { sendNotice } from "./html-page.js";
import { sendLostApproval } from "./lost-approval.js";

const LOGIN_COOKIE = "roundtrip_login";
const LOGIN = "roundtrip/approval-page/sign-in";
const SIGN_IN = "Sign-in";

function pendingLogin(value: Record<string, unknown> | undefined): PendingLogin | undefined {
  const { state, release, codeVerifier, redirectUri } = value ?? {};
  if (typeof state !== "string" || typeof release !== "string") return undefined;
  if (typeof codeVerifier !== "string" || typeof redirectUri !== "string") return undefined;
  return { state, release, codeVerifier, redirectUri };
}

/**
 * The sign-in: a start that sends the browser to the authorization server with the pending sign-in
 * sealed in a cookie bound to /callback, and the callback that opens it on whichever instance it lands.
 * The state in the answer must match the one in this browser's cookie, so a callback started in
 * another browser is not accepted here; the cookie is cleared once used.
 */
export function registerSignInRoutes(scope: FastifyInstance, page: ApprovalPageContext): void {
  scope.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release/sign-in`, async (request, reply) => {
    const { release } = request.params;
    // Checked first, so a sign-in can only be started for a release someone asked for.
    if (!RELEASE_ID.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
    if (!(await page.approvals.status(release))) return sendLostApproval(reply, release);
    const { url, login } = await page.signIn.start(release, page.redirectUri);
    const cookie = setCookie(LOGIN_COOKIE, page.sealed.seal(LOGIN, { ...login }, SIGN_IN_TTL_S), {
      path: CALLBACK_PATH,
      maxAgeS: SIGN_IN_TTL_S,
      secure: page.secure,
    });
    return reply.header("set-cookie", cookie).redirect(url.href);
  });

  scope.get(CALLBACK_PATH, async (request, reply) => {
    const params = new URL(request.url, "http://callback.invalid").searchParams;
    const login = pendingLogin(page.sealed.open(LOGIN, cookiesOf(request)[LOGIN_COOKIE]));
    if (!login || params.get("state") !== login.state) {
      return sendNotice(reply, 400, SIGN_IN, "Sign-in expired or not started in this browser; start again");
    }
    reply.header(
      "set-cookie",
      setCookie(LOGIN_COOKIE, "", { path: CALLBACK_PATH, maxAgeS: 0, secure: page.secure }),
    );
    const result = await page.signIn.finish(login, params);
    switch (result.outcome) {
      case "other-issuer":
        return sendNotice(reply, 400, SIGN_IN, "Sign-in answered by another issuer");
      case "not-completed":
        return sendNotice(
          reply,
          403,
          SIGN_IN,
          "Sign-in was not completed; start again from the release page",
        );
      case "failed":
        request.log.warn({ reason: result.reason }, "approval sign-in failed");
        return sendNotice(reply, 403, SIGN_IN, "Sign-in failed; start again from the release page");
      case "signed-in": {
        const cookie = approverCookie(page.sealed, result.approver, {
          path: APPROVALS_PATH,
          secure: page.secure,
        });
        return reply.header("set-cookie", cookie).redirect(`${APPROVALS_PATH}/${login.release}`);
      }
    }
  });
}
