import type { FastifyInstance } from "fastify";
import { sameUser } from "../approvals/approval-store.js";
import { RELEASE_ID } from "../approvals/release-id.js";
import { APPROVALS_PATH, type ApprovalPageContext } from "./approval-page-context.js";
import { approverOf } from "./approver-cookie.js";
import { csrfToken, csrfValid } from "./csrf-token.js";
import { escapeHtml, sendHtml } from "./html-page.js";
import { sendLostApproval } from "./lost-approval.js";

const APPROVED = "<p>Approved. Return to your MCP client.</p>";
const UNCONFIRMED =
  "<p>Not confirmed yet: answer the confirmation in your MCP client, then reload this page to approve it.</p>";

/**
 * The release page and its Approve form. The URL carries nothing but the release: it is never a
 * pre-authenticated link. What the release is (service, environment, state) is shown only to the
 * signed-in user who asked for it; anyone else learns nothing beyond that it needs a sign-in.
 */
export function registerReleaseRoutes(scope: FastifyInstance, page: ApprovalPageContext): void {
  scope.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release`, async (request, reply) => {
    const { release } = request.params;
    if (!RELEASE_ID.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
    const record = await page.approvals.status(release);
    if (!record) return sendLostApproval(reply, release);
    const title = `Release ${release}`;
    const viewer = approverOf(page.sealed, request);
    if (!viewer) {
      return sendHtml(
        reply,
        200,
        title,
        `<h1>${title}</h1><p>Sign in as the user who asked for this deployment to review it.</p>` +
          `<p><a href="${APPROVALS_PATH}/${release}/sign-in">Sign in</a></p>`,
      );
    }
    if (!sameUser(viewer, record.requester)) {
      return sendHtml(
        reply,
        403,
        title,
        `<h1>${title}</h1><p>Only the user who asked for this deployment can review it.</p>`,
      );
    }
    const heading = `<h1>${title}</h1><p>${escapeHtml(record.service)} to ${escapeHtml(record.env)}</p>`;
    if (record.state === "deployed")
      return sendHtml(reply, 200, title, `${heading}${deployed(record.deployedAt)}`);
    if (record.state === "approved") return sendHtml(reply, 200, title, `${heading}${APPROVED}`);
    if (record.state === "asked") return sendHtml(reply, 200, title, `${heading}${UNCONFIRMED}`);
    const token = csrfToken(page.sealed, viewer.cookie, release);
    return sendHtml(
      reply,
      200,
      title,
      `${heading}<form method="post" action="${APPROVALS_PATH}/${release}/approve">` +
        `<input type="hidden" name="csrf" value="${escapeHtml(token)}"><button type="submit">Approve</button></form>`,
    );
  });

  scope.post<{ Params: { release: string }; Body: Record<string, string> | undefined }>(
    `${APPROVALS_PATH}/:release/approve`,
    async (request, reply) => {
      const { release } = request.params;
      if (!RELEASE_ID.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
      const viewer = approverOf(page.sealed, request);
      if (!viewer) return reply.code(403).type("text/plain").send("Sign in first");
      if (!csrfValid(page.sealed, request.body?.csrf, viewer.cookie, release)) {
        return reply.code(403).type("text/plain").send("Missing or invalid form token; reload the page");
      }
      const outcome = await page.approvals.approve(release, viewer);
      if (outcome === "unknown") return sendLostApproval(reply, release);
      if (outcome === "not-requester") {
        return reply
          .code(403)
          .type("text/plain")
          .send("Only the user who asked for this deployment can approve it");
      }
      if (outcome === "unconfirmed") return sendHtml(reply, 409, `Release ${release}`, UNCONFIRMED);
      if (outcome === "already-deployed") {
        const deployedAt = (await page.approvals.status(release))?.deployedAt;
        return sendHtml(reply, 200, `Release ${release}`, deployed(deployedAt));
      }
      request.log.info({ release }, "release approved");
      return sendHtml(reply, 200, `Release ${release}`, APPROVED);
    },
  );
}

/** A release deploys once: approving it again is answered with that deployment. */
function deployed(at: string | undefined): string {
  const when = at === undefined ? "" : ` at ${escapeHtml(at)}`;
  return `<p>Approved and deployed${when}. It is not deployed again; call deploy again for a new release.</p>`;
}
