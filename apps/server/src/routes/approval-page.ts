import type { FastifyInstance, FastifyRequest } from "fastify";
import { type ApprovalStore, sameUser } from "../approvals/approval-store.js";
import { ApprovalSignIn, type ApprovalSignInOptions, SIGN_IN_TTL_S } from "./approval-sign-in.js";
import { approverCookie, approverOf } from "./approver-cookie.js";
import { cookiesOf, setCookie } from "./cookies.js";
import { csrfToken, csrfValid } from "./csrf-token.js";
import { escapeHtml, sendHtml } from "./html-page.js";
import { createMessageSigner } from "./message-signer.js";

export const APPROVALS_PATH = "/approvals";
/** The sign-in redirect URI's path, on the page's origin (infra/local's interactive client: loopback /callback). */
export const CALLBACK_PATH = "/callback";

const RELEASE = /^rel-[0-9a-f]{8}$/;
const LOGIN_COOKIE = "roundtrip_login";

export interface ApprovalPageOptions extends ApprovalSignInOptions {
  approvals: ApprovalStore;
}

/**
 * The page the deploy tool's URL-mode elicitation points at. The URL carries nothing but the release:
 * it is never a pre-authenticated link. The viewer signs in at the authorization server (authorization
 * code + PKCE S256), and only the user who asked for the deployment (same issuer and subject) sees the
 * Approve button; the approval is recorded in the store, where the deploy tool looks for it.
 *
 * The approver cookie is HMAC-signed with a key made at start, so it is valid on this process only;
 * behind a load balancer, keep the page's requests on one instance or share the key.
 */
export async function registerApprovalPage(
  app: FastifyInstance,
  options: ApprovalPageOptions,
): Promise<void> {
  const signer = createMessageSigner();
  const signIn = new ApprovalSignIn(options);
  const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    scope.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release`, async (request, reply) => {
      const { release } = request.params;
      const record = RELEASE.test(release) ? await options.approvals.status(release) : undefined;
      if (!record) return reply.code(404).type("text/plain").send("Unknown release");
      const title = `Release ${release}`;
      const heading = `<h1>${title}</h1><p>${escapeHtml(record.service)} to ${escapeHtml(record.env)}</p>`;
      if (record.state === "approved") {
        return sendHtml(reply, 200, title, `${heading}<p>Approved. Return to your MCP client.</p>`);
      }
      const viewer = approverOf(signer, request);
      if (!viewer) {
        return sendHtml(
          reply,
          200,
          title,
          `${heading}<p>Sign in as the user who asked for this deployment to approve it.</p>` +
            `<p><a href="${APPROVALS_PATH}/${release}/sign-in">Sign in</a></p>`,
        );
      }
      if (!sameUser(viewer, record.requester)) {
        return sendHtml(
          reply,
          403,
          title,
          `${heading}<p>Only the user who asked for this deployment can approve it.</p>`,
        );
      }
      const token = csrfToken(signer, viewer.cookie, release);
      return sendHtml(
        reply,
        200,
        title,
        `${heading}<form method="post" action="${APPROVALS_PATH}/${release}/approve">` +
          `<input type="hidden" name="csrf" value="${token}"><button type="submit">Approve</button></form>`,
      );
    });

    scope.post<{ Params: { release: string }; Body: Record<string, string> | undefined }>(
      `${APPROVALS_PATH}/:release/approve`,
      async (request, reply) => {
        const { release } = request.params;
        if (!RELEASE.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
        const viewer = approverOf(signer, request);
        if (!viewer) return reply.code(403).type("text/plain").send("Sign in first");
        if (!csrfValid(signer, request.body?.csrf, viewer.cookie, release)) {
          return reply.code(403).type("text/plain").send("Missing or invalid form token; reload the page");
        }
        const outcome = await options.approvals.approve(release, viewer);
        if (outcome === "unknown") return reply.code(404).type("text/plain").send("Unknown release");
        if (outcome === "not-requester") {
          return reply
            .code(403)
            .type("text/plain")
            .send("Only the user who asked for this deployment can approve it");
        }
        request.log.info({ release }, "release approved");
        return sendHtml(reply, 200, `Release ${release}`, "<p>Approved. Return to your MCP client.</p>");
      },
    );

    scope.get<{ Params: { release: string } }>(
      `${APPROVALS_PATH}/:release/sign-in`,
      async (request, reply) => {
        const { release } = request.params;
        if (!RELEASE.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
        const started = await signIn.start(release, `${originOf(request)}${CALLBACK_PATH}`);
        if (!started) return reply.code(503).type("text/plain").send("Too many sign-ins in progress");
        // The state is also bound to this browser, so a callback started elsewhere is not accepted here.
        const cookie = setCookie(LOGIN_COOKIE, started.state, {
          path: CALLBACK_PATH,
          maxAgeS: SIGN_IN_TTL_S,
          secure: request.protocol === "https",
        });
        return reply.header("set-cookie", cookie).redirect(started.url.href);
      },
    );

    scope.get(CALLBACK_PATH, async (request, reply) => {
      const params = new URL(request.url, "http://callback.invalid").searchParams;
      const login = signIn.take(params.get("state"), cookiesOf(request)[LOGIN_COOKIE]);
      if (!login) {
        return reply.code(400).type("text/plain").send("Sign-in expired or not started here; start again");
      }
      const result = await signIn.finish(login, params);
      switch (result.outcome) {
        case "other-issuer":
          return reply.code(400).type("text/plain").send("Sign-in answered by another issuer");
        case "not-completed":
          return reply.code(403).type("text/plain").send("Sign-in was not completed");
        case "failed":
          request.log.warn({ reason: result.reason }, "approval sign-in failed");
          return reply.code(403).type("text/plain").send("Sign-in failed");
        case "signed-in": {
          const cookie = approverCookie(signer, result.approver, {
            path: APPROVALS_PATH,
            secure: request.protocol === "https",
          });
          return reply.header("set-cookie", cookie).redirect(`${APPROVALS_PATH}/${login.release}`);
        }
      }
    });
  });
}
