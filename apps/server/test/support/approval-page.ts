import { DevelopmentBrowser, firstPostForm } from "@roundtrip/local-auth";
import { expect } from "vitest";
import { PUBLIC_CALLBACK } from "./environment.js";
import type { RunningServer } from "./running-server.js";

/** A release page as its signed-in requester saw it: the page, its Approve form and their cookie. */
export interface OpenedPage {
  html: string;
  form: { action: string; fields: Record<string, string> };
  cookie: { cookie: string };
}

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
  const opened = await openAcross(a, b, url, user);
  expect((await submitApproval(b, opened)).status).toBe(200);
  return opened.html;
}

/** Signs in as `user` (the sign-in on `a`, the callback on `b`) and opens the release page on `a`. */
export async function openAcross(
  a: RunningServer,
  b: RunningServer,
  url: string,
  user = "alice",
): Promise<OpenedPage> {
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
  return { html, form, cookie };
}

/** Presses Approve on an opened page, at `server`. */
export function submitApproval(server: RunningServer, opened: OpenedPage): Promise<Response> {
  return fetch(`${server.origin}${opened.form.action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...opened.cookie },
    body: new URLSearchParams(opened.form.fields),
  });
}
