import { DevelopmentBrowser, firstPostForm } from "@roundtrip/local-auth";
import { expect } from "vitest";
import { PUBLIC_CALLBACK } from "./environment.js";
import type { RunningServer } from "./running-server.js";

/**
 * Approves, as `user`, the release of the approval page at `url`, each step on another instance than
 * the one before, as round robin would send it: the sign-in on `a`, the callback on `b`, the page on
 * `a`, Approve on `b`. Resolves to the page as it was shown.
 */
export async function approveAcross(
  a: RunningServer,
  b: RunningServer,
  url: string,
  user = "alice",
): Promise<string> {
  const path = new URL(url).pathname;
  const browser = new DevelopmentBrowser(user);
  const started = await browser.fetch(`${a.origin}${path}/sign-in`);
  const login = browser.cookie(a.origin, "roundtrip_login");
  const answered = await browser.redirectTo(started.headers.get("location") ?? "", PUBLIC_CALLBACK);
  const callback = await fetch(`${b.origin}/callback${answered.search}`, {
    headers: { cookie: `roundtrip_login=${login}` },
    redirect: "manual",
  });
  expect([callback.status, callback.headers.get("location")]).toEqual([302, path]);
  const approver = /roundtrip_approver=([^;]+)/.exec(callback.headers.get("set-cookie") ?? "")?.[1];
  const cookie = { cookie: `roundtrip_approver=${approver}` };
  const page = await fetch(`${a.origin}${path}`, { headers: cookie });
  const html = await page.text();
  expect(page.status).toBe(200);
  const form = firstPostForm(html);
  if (!form) throw new Error(`no Approve form on ${html}`);
  const approved = await fetch(`${b.origin}${form.action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...cookie },
    body: new URLSearchParams(form.fields),
  });
  expect(approved.status).toBe(200);
  return html;
}
