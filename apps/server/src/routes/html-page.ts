import type { FastifyReply } from "fastify";
import { PAGE_STYLE, PAGE_STYLE_SOURCE } from "./page-style.js";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Nothing is loaded, no script runs, the one style sheet is the inline one its hash names, forms post
 * only to this origin, and no page may frame it (an Approve button under someone else's page is a
 * clickjacking lure). The empty icon keeps browsers from asking for /favicon.ico, which the policy
 * would refuse.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_SOURCE}`,
  "img-src data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/**
 * Sends a page of the approval flow, never cached (it shows who may approve). `body` is HTML already:
 * escape every value put into it.
 */
export function sendHtml(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .header("content-security-policy", PAGE_CSP)
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style>${PAGE_STYLE}</style></head>` +
        `<body><main><p class="brand">Roundtrip · deployment approval</p>` +
        `<div class="card">${body}</div></main></body></html>`,
    );
}

/** A page that only says something: a heading and one paragraph, both escaped here. */
export function sendNotice(reply: FastifyReply, status: number, title: string, message: string) {
  return sendHtml(reply, status, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
