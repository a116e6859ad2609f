import { createHash, randomBytes } from "node:crypto";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import type { FastifyRequest } from "fastify";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../src/approvals/approval-store.js";
import { ApprovalSignIn } from "../src/routes/approval-sign-in.js";
import { approverCookie, approverOf } from "../src/routes/approver-cookie.js";
import { cookiesOf, setCookie } from "../src/routes/cookies.js";
import { csrfToken, csrfValid } from "../src/routes/csrf-token.js";
import { escapeHtml, PAGE_CSP, sendHtml } from "../src/routes/html-page.js";
import { releaseView } from "../src/routes/release-view.js";
import { SealedValues } from "../src/routes/sealed-values.js";
import { PUBLIC_URL, startAuthorizationServer } from "./support/environment.js";

const withCookie = (cookie: string) => ({ headers: { cookie } }) as FastifyRequest;
const alice = { issuer: "https://as.test", subject: "alice" };
const release = (n: number) => `rel-${String(n).padStart(32, "0")}`;
/** Two instances of a fleet share the keys; another deployment does not. */
const fleetKey = randomBytes(32);
const sealedValues = () => new SealedValues(new AesGcmRequestStateCodec([fleetKey]));
const otherDeployment = () => new SealedValues(new AesGcmRequestStateCodec([randomBytes(32)]));

describe("SealedValues", () => {
  it("opens on any instance sharing the keys, for its own purpose only, until it expires", () => {
    const sealed = sealedValues().seal("purpose-a", { n: 1 }, 60);
    expect(sealedValues().open("purpose-a", sealed)).toEqual({ n: 1 });
    expect(sealedValues().open("purpose-b", sealed)).toBeUndefined();
    expect(otherDeployment().open("purpose-a", sealed)).toBeUndefined();
    expect(sealedValues().open("purpose-a", `${sealed}x`)).toBeUndefined();
    expect(sealedValues().open("purpose-a", sealedValues().seal("purpose-a", { n: 1 }, -1))).toBeUndefined();
    expect(sealedValues().open("purpose-a", undefined)).toBeUndefined();
    expect(sealedValues().open("purpose-a", "not sealed")).toBeUndefined();
  });

  it("never opens a requestState, which the same keys seal, as one of its values", () => {
    const codec = new AesGcmRequestStateCodec([fleetKey]);
    const requestState = codec.seal(new TextEncoder().encode(JSON.stringify({ p: "x", v: {} })));
    expect(sealedValues().open("x", requestState)).toBeUndefined();
  });
});

describe("cookies", () => {
  it("reads the Cookie header and writes HttpOnly, SameSite=Lax cookies, Secure over https", () => {
    expect(cookiesOf(withCookie("a=1; b = x=y ;=z; c"))).toEqual({ a: "1", b: "x=y" });
    expect(setCookie("n", "v", { path: "/p", maxAgeS: 60, secure: false })).toBe(
      "n=v; Path=/p; Max-Age=60; HttpOnly; SameSite=Lax",
    );
    expect(setCookie("n", "v", { path: "/p", maxAgeS: 60, secure: true })).toMatch(/; Secure$/);
  });
});

describe("approver cookie", () => {
  const signer = sealedValues();
  const cookiePair = (header: string) => header.slice(0, header.indexOf(";"));

  it("names the approver it was made for, on every instance sharing the keys only", () => {
    const header = approverCookie(signer, alice, { path: "/approvals", secure: true });
    expect(header).toMatch(
      /^roundtrip_approver=[^;]+; Path=\/approvals; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
    const cookie = cookiePair(header);
    const value = cookie.slice(cookie.indexOf("=") + 1);
    expect(approverOf(signer, withCookie(cookie))).toEqual({ ...alice, cookie: value });
    expect(approverOf(sealedValues(), withCookie(cookie))).toEqual({ ...alice, cookie: value });
    expect(approverOf(otherDeployment(), withCookie(cookie))).toBeUndefined();
  });

  it("carries the approver's display name when the sign-in had one", () => {
    const named = { ...alice, name: "Alice" };
    const cookie = cookiePair(approverCookie(signer, named, { path: "/approvals", secure: true }));
    expect(approverOf(signer, withCookie(cookie))).toMatchObject(named);
  });

  it("refuses an altered cookie, a value sealed for another purpose, and an empty one", () => {
    const header = approverCookie(signer, alice, { path: "/", secure: false });
    const value = cookiePair(header).slice("roundtrip_approver=".length);
    // Compares the character it replaces, so the value always changes.
    const flipped = `${value.slice(0, -2)}${value.at(-2) === "A" ? "B" : "A"}${value.slice(-1)}`;
    expect(flipped).not.toBe(value);
    const csrf = csrfToken(signer, "cookie", release(1));
    for (const forged of [
      flipped,
      csrf,
      signer.seal("roundtrip/approval-page/approver", { subject: 1 }, 60),
      "",
    ]) {
      expect(approverOf(signer, withCookie(`roundtrip_approver=${forged}`))).toBeUndefined();
    }
  });
});

describe("csrf token", () => {
  it("is good for one approver cookie and one release", () => {
    const signer = sealedValues();
    const token = csrfToken(signer, "cookie", release(1));
    expect(csrfValid(signer, token, "cookie", release(1))).toBe(true);
    expect(csrfValid(sealedValues(), token, "cookie", release(1))).toBe(true);
    expect(csrfValid(otherDeployment(), token, "cookie", release(1))).toBe(false);
    expect(csrfValid(signer, token, "other", release(1))).toBe(false);
    expect(csrfValid(signer, token, "cookie", release(2))).toBe(false);
    expect(csrfValid(signer, `${token}x`, "cookie", release(1))).toBe(false);
    expect(csrfValid(signer, undefined, "cookie", release(1))).toBe(false);
    expect(csrfToken(signer, "cookie", release(1))).not.toBe(token);
  });
});

describe("escapeHtml", () => {
  it("escapes everything that could open markup or an attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
    );
  });
});

describe("the approval pages' HTML", () => {
  it("carry their one style sheet, allowed by its hash, and nothing else the policy would let in", async () => {
    const app = Fastify();
    app.get("/", (_request, reply) => sendHtml(reply, 200, "A <title>", "<p>body</p>"));
    const response = await app.inject("/");
    await app.close();
    const style = /<style>([^<]*)<\/style>/.exec(response.body)?.[1] ?? "";
    const hash = createHash("sha256").update(style).digest("base64");
    expect(response.headers["content-security-policy"]).toBe(PAGE_CSP);
    expect(PAGE_CSP).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src data:; form-action 'self'; ` +
        "frame-ancestors 'none'; base-uri 'none'",
    );
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(response.body).toContain("<title>A &#60;title&#62;</title>");
    expect(response.body).not.toContain("<script");
  });

  it("escape every value a user or client chose, the rejection reason included", () => {
    const hostile = `<img src=x onerror="alert(1)">`;
    const record: ApprovalRecord = {
      release: release(9),
      service: hostile,
      env: hostile,
      requester: { clientId: hostile, issuer: "https://as.test", subject: hostile, name: hostile },
      state: "rejected",
      requestedAt: "2026-12-07T12:00:00.000Z",
      rejection: { by: { ...alice, name: hostile }, at: "2026-12-07T12:05:00.000Z", reason: hostile },
    };
    const html = releaseView(record, "csrf");
    expect(html).not.toContain("<img");
    // Service and environment twice each, the requester's name, subject and client, the rejecter, the reason.
    expect(html.split(escapeHtml(hostile)).length - 1).toBe(9);
    expect(html).toContain('<time datetime="2026-12-07T12:00:00.000Z">2026-12-07 12:00 UTC</time>');
  });
});

describe("ApprovalSignIn", () => {
  let as: LocalAuthServer;
  let signIn: ApprovalSignIn;
  const redirectUri = "http://127.0.0.1:1/callback";
  beforeAll(async () => {
    as = await startAuthorizationServer();
    signIn = new ApprovalSignIn({
      issuer: as.issuer,
      clientId: "approval-page",
      resource: PUBLIC_URL,
      scopes: ["mcp:tools"],
      verifier: { verify: async () => ({ token: "t", clientId: "c", scopes: [] }) },
      allowInsecureHttp: false,
    });
  });
  afterAll(() => as?.close());

  it("sends the browser with PKCE S256, the openid scope and the resource", async () => {
    const started = await signIn.start(release(1), redirectUri);
    const query = started.url.searchParams;
    expect(started?.url.href.startsWith(`${as.issuer}/`)).toBe(true);
    expect(query?.get("client_id")).toBe("approval-page");
    expect(query?.get("redirect_uri")).toBe(redirectUri);
    expect(query?.get("scope")).toBe("openid mcp:tools");
    expect(query?.get("code_challenge_method")).toBe("S256");
    expect(query?.get("resource")).toBe(PUBLIC_URL);
    expect(query?.get("state")).toBe(started.login.state);
    expect(started.login).toMatchObject({ release: release(1), redirectUri });
    expect(started.login.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  });

  it("does not act on an answer from another issuer, or on one without iss, and needs a code", async () => {
    const login = { state: "s", release: release(3), codeVerifier: "v", redirectUri };
    // The callback route hands over only answers whose state matched this browser's cookie.
    const answer = (fields: Record<string, string>) =>
      signIn.finish(login, new URLSearchParams({ state: login.state, ...fields }));
    expect(await answer({ code: "c", iss: `${as.issuer}/` })).toEqual({ outcome: "other-issuer" });
    expect(await answer({ code: "c" })).toEqual({ outcome: "other-issuer" });
    expect(await answer({ error: "access_denied", iss: as.issuer })).toEqual({ outcome: "not-completed" });
    expect(await answer({ code: "not-a-code", iss: as.issuer })).toMatchObject({ outcome: "failed" });
  });
});
