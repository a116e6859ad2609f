import {
  type ApprovalRecord,
  displayName,
  MAX_REJECTION_REASON,
  type Requester,
} from "../approvals/approval-store.js";
import { APPROVALS_PATH } from "./approval-page-context.js";
import { escapeHtml } from "./html-page.js";

/**
 * The approval pages' bodies, as HTML. Everything a user or a client chose (service, names, the
 * rejection reason) is escaped here, where it meets the markup; release ids match RELEASE_ID.
 */

export const UNCONFIRMED =
  "Not confirmed yet: answer the confirmation in your MCP client, then reload this page to approve it.";

const heading = (release: string) => `<h1>Release <code>${escapeHtml(release)}</code></h1>`;
const status = (kind: string, text: string) => `<p class="status status-${kind}">${text}</p>`;

export function signInView(release: string): string {
  return (
    `${heading(release)}${status("asked", "Sign-in needed")}` +
    "<p>Sign in as the user who asked for this deployment to review it.</p>" +
    `<p><a class="button" href="${APPROVALS_PATH}/${release}/sign-in">Sign in</a></p>`
  );
}

/** Shown to anyone signed in who is not the requester: it names nothing about the release. */
export function refusedView(release: string): string {
  return (
    `${heading(release)}${status("refused", "Not yours to review")}` +
    "<p>Only the user who asked for this deployment can review it.</p>"
  );
}

/** A form that was refused for what was typed into it; `back` leads to the release again. */
export function badInputView(release: string, message: string): string {
  return (
    `${heading(release)}${status("refused", "Nothing was changed")}<p>${escapeHtml(message)}</p>` +
    `<p><a href="${APPROVALS_PATH}/${release}">Back to the release</a></p>`
  );
}

/** The release as its requester sees it: the details, then the decision or what became of it. */
export function releaseView(record: ApprovalRecord, csrf: string): string {
  return `${heading(record.release)}${statusOf(record)}${details(record)}${decision(record, csrf)}`;
}

function statusOf(record: ApprovalRecord): string {
  switch (record.state) {
    case "asked":
      return status("asked", "Waiting for your confirmation");
    case "pending":
      return status("pending", "Waiting for your decision");
    case "approved":
      return status("approved", "Approved");
    case "rejected":
      return status("rejected", "Rejected");
    case "deployed":
      return status("deployed", "Deployed");
  }
}

function details(record: ApprovalRecord): string {
  const service = escapeHtml(record.service);
  const env = escapeHtml(record.env);
  const rows = [
    ["Change", `<span class="change">Deploy ${service} to ${env}</span>`],
    ["Service", service],
    ["Environment", env],
    ["Asked by", askedBy(record.requester)],
  ];
  if (record.requestedAt !== undefined) rows.push(["Asked at", time(record.requestedAt)]);
  return `<dl>${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("")}</dl>`;
}

function askedBy(requester: Requester): string {
  const who =
    requester.name === undefined
      ? escapeHtml(requester.subject)
      : `${escapeHtml(requester.name)} (${escapeHtml(requester.subject)})`;
  return `${who}, with the client ${escapeHtml(requester.clientId)}`;
}

/** An ISO 8601 instant as people read it, to the minute, in UTC. */
function time(iso: string): string {
  const shown = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  const text = shown ? `${shown[1]} ${shown[2]} UTC` : iso;
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(text)}</time>`;
}

function decision(record: ApprovalRecord, csrf: string): string {
  switch (record.state) {
    case "asked":
      return outcome(`<p>${UNCONFIRMED}</p>`);
    case "approved":
      return outcome("<p>Approved. Return to your MCP client: it deploys the release on its next round.</p>");
    case "deployed":
      return outcome(deployedText(record.deployedAt));
    case "rejected":
      return outcome(rejectedText(record));
    case "pending":
      return decisionForms(record.release, csrf);
  }
}

const outcome = (html: string) =>
  `<div class="actions"><div class="outcome" role="status">${html}</div></div>`;

/** A release deploys once: approving it again is answered with that deployment. */
export function deployedText(at: string | undefined): string {
  const when = at === undefined ? "" : ` at ${escapeHtml(at)}`;
  return `<p>Approved and deployed${when}. It is not deployed again; call deploy again for a new release.</p>`;
}

function rejectedText(record: ApprovalRecord): string {
  const rejection = record.rejection;
  if (rejection === undefined) return "<p>Rejected. Nothing will be deployed.</p>";
  return (
    `<p>Rejected by ${escapeHtml(displayName(rejection.by))} at ${time(rejection.at)}. ` +
    "Nothing will be deployed; call deploy again for a new release.</p>" +
    `<blockquote>${escapeHtml(rejection.reason)}</blockquote>`
  );
}

function decisionForms(release: string, csrf: string): string {
  const token = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  return (
    `<div class="actions">` +
    `<form method="post" action="${APPROVALS_PATH}/${release}/approve">${token}` +
    `<button type="submit" class="approve">Approve</button></form>` +
    `<form method="post" action="${APPROVALS_PATH}/${release}/reject">${token}` +
    `<label for="reason">Reason for rejecting</label>` +
    `<p class="hint" id="reason-hint">Required to reject; up to ${MAX_REJECTION_REASON} characters, shown to your MCP client.</p>` +
    `<div class="reject-row"><input type="text" id="reason" name="reason" required maxlength="${MAX_REJECTION_REASON}" ` +
    `autocomplete="off" aria-describedby="reason-hint">` +
    `<button type="submit" class="reject">Reject</button></div></form>` +
    `</div>`
  );
}
