import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Approver, rejectionReason, sameUser } from "../approvals/approval-store.js";
import { RELEASE_ID } from "../approvals/release-id.js";
import { APPROVALS_PATH, type ApprovalPageContext } from "./approval-page-context.js";
import { approverOf } from "./approver-cookie.js";
import { csrfToken, csrfValid } from "./csrf-token.js";
import { sendHtml, sendNotice } from "./html-page.js";
import { sendLostApproval } from "./lost-approval.js";
import { badInputView, refusedView, releaseView, signInView, UNCONFIRMED } from "./release-view.js";

type FormRequest = FastifyRequest<{ Params: { release: string }; Body: Record<string, string> | undefined }>;

/**
 * The release page and its Approve and Reject forms. The URL carries nothing but the release: it is
 * never a pre-authenticated link. What the release is (service, environment, state) is shown only to
 * the signed-in user who asked for it; anyone else learns nothing beyond that it needs a sign-in.
 */
export function registerReleaseRoutes(scope: FastifyInstance, page: ApprovalPageContext): void {
  scope.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release`, async (request, reply) => {
    const { release } = request.params;
    if (!RELEASE_ID.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
    const record = await page.approvals.status(release);
    if (!record) return sendLostApproval(reply, release);
    const viewer = approverOf(page.sealed, request);
    if (!viewer) return sendHtml(reply, 200, `Release ${release}`, signInView(release));
    if (!sameUser(viewer, record.requester)) {
      return sendHtml(reply, 403, `Release ${release}`, refusedView(release));
    }
    return showRelease(page, reply, release, viewer, 200);
  });

  scope.post(`${APPROVALS_PATH}/:release/approve`, async (request: FormRequest, reply) => {
    const viewer = formViewer(page, request, reply);
    if (!viewer) return reply;
    const { release } = request.params;
    const outcome = await page.approvals.approve(release, viewer);
    if (outcome === "unknown") return sendLostApproval(reply, release);
    if (outcome === "not-requester") return notRequester(reply, release, "approve");
    if (outcome === "unconfirmed") return sendHtml(reply, 409, `Release ${release}`, `<p>${UNCONFIRMED}</p>`);
    if (outcome === "approved") request.log.info({ release }, "release approved");
    // Approved now, before, deployed or rejected: the page says which.
    return showRelease(page, reply, release, viewer, outcome === "already-rejected" ? 409 : 200);
  });

  scope.post(`${APPROVALS_PATH}/:release/reject`, async (request: FormRequest, reply) => {
    const viewer = formViewer(page, request, reply);
    if (!viewer) return reply;
    const { release } = request.params;
    let reason: string;
    try {
      reason = rejectionReason(request.body?.reason ?? "");
    } catch (error) {
      const message = error instanceof RangeError ? error.message : "the reason was not readable";
      return sendHtml(reply, 400, `Release ${release}`, badInputView(release, `Not rejected: ${message}.`));
    }
    const outcome = await page.approvals.reject(release, viewer, reason);
    if (outcome === "unknown") return sendLostApproval(reply, release);
    if (outcome === "not-requester") return notRequester(reply, release, "reject");
    if (outcome === "unconfirmed") return sendHtml(reply, 409, `Release ${release}`, `<p>${UNCONFIRMED}</p>`);
    // The reason is the user's text and stays out of the log.
    if (outcome === "rejected") request.log.info({ release }, "release rejected");
    return showRelease(page, reply, release, viewer, outcome === "rejected" ? 200 : 409);
  });
}

/** The signed-in viewer of a form post with a valid form token; otherwise the refusal is sent. */
function formViewer(
  page: ApprovalPageContext,
  request: FormRequest,
  reply: FastifyReply,
): (Approver & { cookie: string }) | undefined {
  const { release } = request.params;
  if (!RELEASE_ID.test(release)) {
    reply.code(404).type("text/plain").send("Unknown release");
    return undefined;
  }
  const viewer = approverOf(page.sealed, request);
  if (!viewer) {
    sendNotice(reply, 403, `Release ${release}`, "Sign in first: open the release page and follow Sign in");
    return undefined;
  }
  if (!csrfValid(page.sealed, request.body?.csrf, viewer.cookie, release)) {
    sendNotice(reply, 403, `Release ${release}`, "Missing or invalid form token; reload the page");
    return undefined;
  }
  return viewer;
}

function notRequester(reply: FastifyReply, release: string, what: "approve" | "reject") {
  return sendNotice(
    reply,
    403,
    `Release ${release}`,
    `Only the user who asked for this deployment can ${what} it`,
  );
}

async function showRelease(
  page: ApprovalPageContext,
  reply: FastifyReply,
  release: string,
  viewer: Approver & { cookie: string },
  code: number,
) {
  const record = await page.approvals.status(release);
  if (!record) return sendLostApproval(reply, release);
  const csrf = csrfToken(page.sealed, viewer.cookie, release);
  return sendHtml(reply, code, `Release ${release}`, releaseView(record, csrf));
}
