import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_REDIRECT_URI,
  DevelopmentBrowser,
  firstPostForm,
  type LocalAuthServer,
  requestToken,
  startLocalAuthServer,
} from "../src/index.js";

const RESOURCE = "http://127.0.0.1:9/mcp";

let as: LocalAuthServer;
let app: { origin: string; server: Server };

/** An authorization request for the interactive client, with what redeeming its code will need. */
function authorizationRequest(redirectUri: string) {
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(16).toString("base64url");
  const url = new URL(`${as.issuer}/auth`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: "mcp-interactive",
    redirect_uri: redirectUri,
    scope: "mcp:tools",
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: RESOURCE,
  }).toString();
  return { url, verifier, state };
}

async function subjectOf(code: string, verifier: string, redirectUri: string): Promise<unknown> {
  const tokens = await requestToken(as.tokenEndpoint, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: "mcp-interactive",
    resource: RESOURCE,
  });
  return decodeJwt(tokens.accessToken).sub;
}

/**
 * A small app with a sign-in of its own: /sign-in sends the browser to the authorization server, the
 * loopback /callback redeems the code, sets a cookie and redirects to /home, which shows who signed in.
 */
async function startApp(): Promise<{ origin: string; server: Server }> {
  const verifiers = new Map<string, string>();
  let origin = "";
  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "content-type": "text/html", ...headers }).end(html);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname === "/sign-in") {
      const request = authorizationRequest(`${origin}/callback`);
      verifiers.set(request.state, request.verifier);
      return res.writeHead(302, { location: request.url.href }).end();
    }
    if (url.pathname === "/callback") {
      const verifier = verifiers.get(url.searchParams.get("state") ?? "");
      if (url.searchParams.get("iss") !== as.issuer || !verifier)
        return send(res, 400, "<p>another issuer</p>");
      const subject = await subjectOf(url.searchParams.get("code") ?? "", verifier, `${origin}/callback`);
      return res
        .writeHead(303, {
          location: "/home",
          "set-cookie": `signed_in=${String(subject)}; Path=/; HttpOnly`,
        })
        .end();
    }
    if (url.pathname === "/home") {
      const form = `<form method="post" action="/home/act?a=1&amp;b=2"><input name="csrf" value="x&quot;y"></form>`;
      return send(res, 200, `<p>cookie: ${req.headers.cookie ?? ""}</p>${form}`);
    }
    if (url.pathname === "/cookies/set") {
      // Without a Path, a cookie set at /cookies/set belongs to /cookies (RFC 6265 default-path).
      const cookies = ["scoped=1; Path=/cookies/a", "sibling=2", "gone=3; Max-Age=0"];
      return res.writeHead(204, { "set-cookie": cookies }).end();
    }
    if (url.pathname === "/cookies/clear") {
      const expired = "sibling=; Path=/cookies; Expires=Thu, 01 Jan 1970 00:00:00 GMT";
      return res.writeHead(204, { "set-cookie": expired }).end();
    }
    if (url.pathname.startsWith("/cookies/"))
      return send(res, 200, `<p>cookie: ${req.headers.cookie ?? ""}</p>`);
    return send(res, 404, "<p>nothing here</p>");
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, server };
}

beforeAll(async () => {
  as = await startLocalAuthServer({ resource: RESOURCE });
  app = await startApp();
});
afterAll(async () => {
  app?.server.closeAllConnections();
  await new Promise((resolve) => app?.server.close(resolve));
  await as?.close();
});

describe("DevelopmentBrowser", () => {
  it("visit: follows an app's sign-in through login and consent to the app's page, holding its cookie", async () => {
    const alice = new DevelopmentBrowser("alice");

    const page = await alice.visit(`${app.origin}/sign-in`, app.origin);

    expect(page.url.href).toBe(`${app.origin}/home`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("cookie: signed_in=alice");
    expect(alice.cookie(app.origin, "signed_in")).toBe("alice");
    expect(alice.cookie(`${app.origin}/`, "signed_in")).toBe("alice");
    expect(alice.cookie(as.issuer, "signed_in")).toBeUndefined();
    expect(firstPostForm(page.html)).toEqual({ action: "/home/act?a=1&b=2", fields: { csrf: 'x"y' } });
  });

  it("visit: stops at the first page of home whatever its status, after a redirect a test rewrote", async () => {
    const dropIss = (url: URL) => {
      if (url.pathname === "/callback") url.searchParams.delete("iss");
      return url;
    };

    const page = await new DevelopmentBrowser("bob").visit(`${app.origin}/sign-in`, app.origin, dropIss);

    expect(page.url.pathname).toBe("/callback");
    expect(page.status).toBe(400);
    expect(page.html).toContain("another issuer");
  });

  it("visit: a page that is neither home's nor a form to fill in is an error naming where it stopped", async () => {
    const stuck = new DevelopmentBrowser("alice").visit(`${app.origin}/nowhere`, as.issuer);
    await expect(stuck).rejects.toThrow(/\/nowhere with HTTP 404: nothing here/);
  });

  it("redirectTo: returns the authorization response at the redirect URI without requesting it", async () => {
    const request = authorizationRequest(DEFAULT_REDIRECT_URI);

    // Nothing listens on port 80 of loopback: requesting the callback would fail.
    const callback = await new DevelopmentBrowser("bob").redirectTo(request.url, DEFAULT_REDIRECT_URI);

    expect(callback.origin + callback.pathname).toBe(DEFAULT_REDIRECT_URI);
    expect(callback.searchParams.get("state")).toBe(request.state);
    expect(callback.searchParams.get("iss")).toBe(as.issuer);
    const code = callback.searchParams.get("code") ?? "";
    expect(await subjectOf(code, request.verifier, DEFAULT_REDIRECT_URI)).toBe("bob");
  });

  it("redirectTo: keeps the sign-in, so a second authorization by the same browser shows no login page", async () => {
    const logins: string[] = [];
    class Recording extends DevelopmentBrowser {
      override fetch(url: string | URL, init?: RequestInit): Promise<Response> {
        if (init?.body instanceof URLSearchParams && init.body.has("login")) logins.push(String(url));
        return super.fetch(url, init);
      }
    }
    const alice = new Recording("alice");

    await alice.redirectTo(authorizationRequest(DEFAULT_REDIRECT_URI).url, DEFAULT_REDIRECT_URI);
    expect(logins).toHaveLength(1);
    const again = authorizationRequest(DEFAULT_REDIRECT_URI);
    const callback = await alice.redirectTo(again.url, DEFAULT_REDIRECT_URI);

    expect(logins).toHaveLength(1);
    const code = callback.searchParams.get("code") ?? "";
    expect(await subjectOf(code, again.verifier, DEFAULT_REDIRECT_URI)).toBe("alice");
  });

  it("redirectTo: a login the server does not know is refused by name, not walked forever", async () => {
    const walk = new DevelopmentBrowser("mallory").redirectTo(
      authorizationRequest(DEFAULT_REDIRECT_URI).url,
      DEFAULT_REDIRECT_URI,
    );
    await expect(walk).rejects.toThrow('user "mallory" is not an account of this authorization server');
  });

  it("an error the authorization server redirects with still ends at the redirect URI", async () => {
    const request = authorizationRequest(DEFAULT_REDIRECT_URI);
    request.url.searchParams.delete("code_challenge");

    const callback = await new DevelopmentBrowser("alice").redirectTo(request.url, DEFAULT_REDIRECT_URI);

    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("state")).toBe(request.state);
  });

  it("fetch: sends cookies only to their origin and path, and forgets expired ones", async () => {
    const browser = new DevelopmentBrowser("alice");
    const echo = async (path: string) => (await (await browser.fetch(`${app.origin}${path}`)).text()).trim();

    await browser.fetch(`${app.origin}/cookies/set`);
    expect(browser.cookie(app.origin, "scoped")).toBe("1");
    expect(browser.cookie(app.origin, "sibling")).toBe("2");
    expect(browser.cookie(app.origin, "gone")).toBeUndefined();
    expect(await echo("/cookies/a/home")).toContain("cookie: scoped=1; sibling=2");
    expect(await echo("/cookies/ab/home")).toContain("cookie: sibling=2");
    expect(await echo("/home")).toContain("cookie: </p>");
    expect(browser.cookie(as.issuer, "sibling")).toBeUndefined();

    await browser.fetch(`${app.origin}/cookies/clear`);
    expect(browser.cookie(app.origin, "sibling")).toBeUndefined();
    expect(await echo("/cookies/a/home")).toBe("<p>cookie: scoped=1</p>");
  });
});
