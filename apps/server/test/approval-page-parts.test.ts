import type { LocalAuthServer } from "@roundtrip/local-auth";
import type { FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalSignIn } from "../src/routes/approval-sign-in.js";
import { approverCookie, approverOf } from "../src/routes/approver-cookie.js";
import { cookiesOf, setCookie } from "../src/routes/cookies.js";
import { csrfToken, csrfValid } from "../src/routes/csrf-token.js";
import { escapeHtml } from "../src/routes/html-page.js";
import { createMessageSigner } from "../src/routes/message-signer.js";
import { PUBLIC_URL, startAuthorizationServer } from "./support/environment.js";

const withCookie = (cookie: string) => ({ headers: { cookie } }) as FastifyRequest;
const alice = { issuer: "https://as.test", subject: "alice" };

describe("createMessageSigner", () => {
  it("verifies its own signatures only", () => {
    const signer = createMessageSigner();
    const signature = signer.sign("text");
    expect(signer.verify("text", signature)).toBe(true);
    expect(signer.verify("other", signature)).toBe(false);
    expect(signer.verify("text", `${signature}x`)).toBe(false);
    expect(createMessageSigner().verify("text", signature)).toBe(false);
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
  const signer = createMessageSigner();
  const cookiePair = (header: string) => header.slice(0, header.indexOf(";"));

  it("names the approver it was made for, on this signer only", () => {
    const header = approverCookie(signer, alice, { path: "/approvals", secure: true });
    expect(header).toMatch(
      /^roundtrip_approver=[^;]+; Path=\/approvals; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
    const cookie = cookiePair(header);
    expect(approverOf(signer, withCookie(cookie))).toEqual({ ...alice, cookie: cookie.split("=")[1] });
    expect(approverOf(createMessageSigner(), withCookie(cookie))).toBeUndefined();
  });

  it("refuses a cookie with another name, a later expiry, or the wrong shape", () => {
    const value = cookiePair(approverCookie(signer, alice, { path: "/", secure: false })).split("=")[1] ?? "";
    const [subject, issuer, expiry, signature] = value.split(".");
    const bob = Buffer.from("bob").toString("base64url");
    for (const forged of [
      `${bob}.${issuer}.${expiry}.${signature}`,
      `${subject}.${issuer}.${Number(expiry) + 1}.${signature}`,
      `${subject}.${issuer}.${expiry}`,
      "",
    ]) {
      expect(approverOf(signer, withCookie(`roundtrip_approver=${forged}`))).toBeUndefined();
    }
  });
});

describe("csrf token", () => {
  it("is good for one approver cookie and one release", () => {
    const signer = createMessageSigner();
    const token = csrfToken(signer, "cookie", "rel-00000001");
    expect(csrfValid(signer, token, "cookie", "rel-00000001")).toBe(true);
    expect(csrfValid(signer, token, "other", "rel-00000001")).toBe(false);
    expect(csrfValid(signer, token, "cookie", "rel-00000002")).toBe(false);
    expect(csrfValid(signer, `${token}.x`, "cookie", "rel-00000001")).toBe(false);
    expect(csrfValid(signer, `.${token.split(".")[1]}`, "cookie", "rel-00000001")).toBe(false);
    expect(csrfValid(signer, undefined, "cookie", "rel-00000001")).toBe(false);
    expect(csrfToken(signer, "cookie", "rel-00000001")).not.toBe(token);
  });
});

describe("escapeHtml", () => {
  it("escapes everything that could open markup or an attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
    );
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
    });
  });
  afterAll(() => as?.close());

  it("sends the browser with PKCE S256, the openid scope and the resource", async () => {
    const started = await signIn.start("rel-00000001", redirectUri);
    const query = started?.url.searchParams;
    expect(started?.url.href.startsWith(`${as.issuer}/`)).toBe(true);
    expect(query?.get("client_id")).toBe("approval-page");
    expect(query?.get("redirect_uri")).toBe(redirectUri);
    expect(query?.get("scope")).toBe("openid mcp:tools");
    expect(query?.get("code_challenge_method")).toBe("S256");
    expect(query?.get("resource")).toBe(PUBLIC_URL);
    expect(query?.get("state")).toBe(started?.state);
  });

  it("gives a pending sign-in only to the browser that started it, and only once", async () => {
    const started = await signIn.start("rel-00000002", redirectUri);
    const state = started?.state ?? "";
    expect(signIn.take(state, "another browser")).toBeUndefined();
    expect(signIn.take(null, state)).toBeUndefined();
    expect(signIn.take(state, state)).toMatchObject({ release: "rel-00000002", redirectUri });
    expect(signIn.take(state, state)).toBeUndefined();
  });

  it("does not act on an answer from another issuer, or on one without iss, and needs a code", async () => {
    const login = { release: "rel-00000003", codeVerifier: "v", redirectUri, expiresAt: Date.now() + 60_000 };
    const answer = (fields: Record<string, string>) => signIn.finish(login, new URLSearchParams(fields));
    expect(await answer({ code: "c", iss: `${as.issuer}/` })).toEqual({ outcome: "other-issuer" });
    expect(await answer({ code: "c" })).toEqual({ outcome: "other-issuer" });
    expect(await answer({ error: "access_denied", iss: as.issuer })).toEqual({ outcome: "not-completed" });
    expect(await answer({ code: "not-a-code", iss: as.issuer })).toMatchObject({ outcome: "failed" });
  });
});
