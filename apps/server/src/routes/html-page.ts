import type { FastifyReply } from "fastify";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Sends a page that loads nothing, posts only to this origin, is never cached (it shows who may
 * approve) and cannot be framed (an Approve button under someone else's page is a clickjacking lure).
 * `body` is HTML already: escape every value put into it.
 */
export function sendHtml(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .header("content-security-policy", "default-src 'none'; form-action 'self'")
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .send(`<!doctype html><title>${escapeHtml(title)}</title>${body}`);
}
