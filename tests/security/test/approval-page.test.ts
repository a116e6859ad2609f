import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernFlow } from "../src/flows.js";
import { PUBLIC_URL, Target } from "../src/target.js";

/**
 * The deploy approval page, which anyone can open without a token: it cannot be framed, reflects
 * nothing it was sent, approves nothing without the requester's sign-in and its form token, and its
 * sign-in sends the browser to the authorization server and back to PUBLIC_URL only.
 */
let target: Target;
let release: string;

beforeAll(async () => {
  target = await Target.start();
  const alice = await target.token("alice");
  const asked = await modernFlow(
    target.instance.url,
    alice,
    "deploy",
    { service: "api", env: "production" },
    "",
  );
  const found = /\/approvals\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(asked.body))?.[1];
  if (found === undefined) throw new Error(`deploy gave no approval URL: ${JSON.stringify(asked.body)}`);
  release = found;
}, 240_000);

afterAll(async () => {
  await target?.close();
});

const page = (path: string, init: RequestInit = {}) =>
  fetch(`${target.instance.origin}${path}`, { redirect: "manual", ...init });

describe("the approval page", () => {
  it("cannot be framed, loads nothing, and is never cached", async () => {
    const response = await page(`/approvals/${release}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("reflects no markup it was sent, in the path or the query", async () => {
    const injected = "<script>alert(1)</script>";
    for (const path of [
      `/approvals/${encodeURIComponent(injected)}`,
      `/approvals/${release}?x=${encodeURIComponent(injected)}`,
      `/approvals/${encodeURIComponent(injected)}/sign-in`,
      `/callback?state=${encodeURIComponent(injected)}&code=x`,
    ]) {
      const text = await (await page(path)).text();
      expect(text).not.toContain("<script>");
    }
  });

  it("approves nothing without a sign-in, from any origin", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { origin: "https://evil.example" },
      { cookie: "roundtrip_approver=forged" },
    ];
    for (const headers of attempts) {
      const response = await page(`/approvals/${release}/approve`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: "csrf=anything",
      });
      expect(response.status).toBe(403);
    }
    // The release is still waiting: nothing above approved it.
    expect(await (await page(`/approvals/${release}`)).text()).toContain("Sign in");
  });

  it("sends a sign-in to the authorization server only, to come back to PUBLIC_URL, whatever it was asked", async () => {
    const response = await page(
      `/approvals/${release}/sign-in?redirect_uri=${encodeURIComponent("https://evil.example/cb")}`,
      { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } },
    );
    expect([302, 303]).toContain(response.status);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.origin).toBe(new URL(target.auth.issuer).origin);
    expect(location.searchParams.get("redirect_uri")).toBe(new URL("/callback", PUBLIC_URL).href);
  });
});
