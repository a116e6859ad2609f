import { get as httpGet } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { DevelopmentBrowser, firstPostForm, type LocalAuthServer } from "@roundtrip/local-auth";
import { isInputRequiredResult } from "@roundtrip/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryApprovalLedger } from "../src/index.js";
import { approvalStore, requested } from "./support/approvals.js";
import {
  PUBLIC_CALLBACK,
  serverEnvironment,
  startAuthorizationServer,
  viaInstance,
} from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let aliceToken: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

function textOf(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("");
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

describe("deploy approval through the approval page", () => {
  it("waits until alice signs in and approves; bob, forged cookies and missing form tokens cannot", async () => {
    const urls: string[] = [];
    let opened: (url: string) => void = () => {};
    const firstUrl = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const client = mcpClient(app.url, aliceToken, watch, {
      inputRequiredMaxRounds: 200,
      onElicit: (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        urls.push(params.url);
        opened(params.url);
        return { action: "accept" };
      },
    });
    let settled = false;
    const done = client.callTool("deploy", { service: "api", env: "production" }).finally(() => {
      settled = true;
    });

    const path = new URL(await firstUrl).pathname;
    const page = `${app.origin}${path}`;
    const release = path.split("/").pop() ?? "";
    await sleep(500);
    expect(settled).toBe(false);
    expect((await app.server.approvals.status(release))?.state).toBe("pending");

    const bob = new DevelopmentBrowser("bob");
    const anonymous = await bob.visit(page, app.origin, viaInstance(app.origin));
    expect(anonymous.html).toContain(`Release ${release}`);
    expect(anonymous.html).toContain("Sign in");
    // What the release is stays between the requester and the page.
    expect(anonymous.html).not.toContain("production");
    expect(firstPostForm(anonymous.html)).toBeUndefined();
    const bobPage = await bob.visit(`${page}/sign-in`, app.origin, viaInstance(app.origin));
    expect(bobPage.url.pathname).toBe(path);
    expect(bobPage.status).toBe(403);
    expect(bobPage.html).not.toContain("production");
    expect(firstPostForm(bobPage.html)).toBeUndefined();
    expect((await bob.fetch(`${page}/approve`, form({ csrf: "a.b" }))).status).toBe(403);

    const alice = new DevelopmentBrowser("alice");
    const alicePage = await alice.visit(`${page}/sign-in`, app.origin, viaInstance(app.origin));
    expect(alicePage.url.pathname).toBe(path);
    const approveForm = firstPostForm(alicePage.html);
    expect(approveForm?.action).toBe(`${path}/approve`);
    const csrf = approveForm?.fields.csrf ?? "";
    const approveUrl = `${app.origin}${path}/approve`;
    const cookie = alice.cookie(app.origin, "roundtrip_approver") ?? "";
    expect(cookie).not.toBe("");

    // No form token, or one made for another page or cookie.
    expect((await alice.fetch(approveUrl, form({}))).status).toBe(403);
    expect((await alice.fetch(approveUrl, form({ csrf: `${csrf}x` }))).status).toBe(403);
    expect((await bob.fetch(approveUrl, form({ csrf }))).status).toBe(403);
    // No cookie, a tampered one, one signed by someone else.
    expect((await fetch(approveUrl, form({ csrf }))).status).toBe(403);
    const [subject, issuer, , signature] = cookie.split(".");
    const later = Math.floor(Date.now() / 1000) + 3600;
    for (const forged of [
      `${subject}.${issuer}.${later}.${signature}`,
      `${subject}.${issuer}.${later}.${"A".repeat(43)}`,
    ]) {
      const response = await fetch(approveUrl, {
        ...form({ csrf }),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: `roundtrip_approver=${forged}`,
        },
      });
      expect(response.status).toBe(403);
    }
    expect(settled).toBe(false);
    expect((await app.server.approvals.status(release))?.state).toBe("pending");

    const approved = await alice.fetch(approveUrl, form({ csrf }));
    expect(approved.status).toBe(200);
    expect(textOf(await done)).toBe(`Deployed ${release} of api to production`);
    expect(urls[0]).toBe(`https://mcp.roundtrip.test${path}`);
  }, 120_000);

  it("rejects with a reason: refused without one or from bob, final once given, and the tool reports it", async () => {
    let opened: (url: string) => void = () => {};
    const firstUrl = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const client = mcpClient(app.url, aliceToken, watch, {
      inputRequiredMaxRounds: 200,
      onElicit: (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        opened(params.url);
        return { action: "accept" };
      },
    });
    const done = client.callTool("deploy", { service: "api", env: "staging" });
    const path = new URL(await firstUrl).pathname;
    const release = path.split("/").pop() ?? "";
    const alice = new DevelopmentBrowser("alice");
    const page = await alice.visit(`${app.origin}${path}/sign-in`, app.origin, viaInstance(app.origin));
    const csrf = firstPostForm(page.html)?.fields.csrf ?? "";
    const rejectUrl = `${app.origin}${path}/reject`;

    for (const reason of ["", "   ", "x".repeat(201), "two\nlines"]) {
      const refused = await alice.fetch(rejectUrl, form({ csrf, reason }));
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain("Not rejected: a rejection");
    }
    expect((await alice.fetch(rejectUrl, form({ reason: "no token" }))).status).toBe(403);
    const bob = new DevelopmentBrowser("bob");
    await bob.visit(`${app.origin}${path}/sign-in`, app.origin, viaInstance(app.origin));
    expect((await bob.fetch(rejectUrl, form({ csrf, reason: "not mine" }))).status).toBe(403);
    expect((await app.server.approvals.status(release))?.state).toBe("pending");

    const rejected = await alice.fetch(rejectUrl, form({ csrf, reason: "wait for the <freeze> to end" }));
    expect(rejected.status).toBe(200);
    expect(await rejected.text()).toContain("wait for the &#60;freeze&#62; to end");
    const again = await alice.fetch(`${app.origin}${path}/approve`, form({ csrf }));
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("Rejected by alice at");

    const result = await done;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`Release ${release} was rejected by alice: wait for the <freeze> to end`);
    expect(
      app.logs.lines().filter((line) => line.msg === "release deployed" && line.release === release),
    ).toEqual([]);
  }, 120_000);

  it("asks for the URL again after five rounds without an approval, and a decline deploys nothing", async () => {
    const modes: string[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      inputRequiredMaxRounds: 20,
      onElicit: (params) => {
        modes.push(params.mode ?? "form");
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        return { action: modes.filter((mode) => mode === "url").length === 1 ? "accept" : "decline" };
      },
    });

    const result = await client.callTool("deploy", { service: "api", env: "staging" });

    expect(modes).toEqual(["form", "url", "url"]);
    expect(textOf(result)).toMatch(
      /^Release rel-[0-9a-f]{32} was not approved \(declined\); nothing was deployed$/,
    );
  });

  it("shows nothing for releases nobody asked for, and needs a sign-in started on this server", async () => {
    expect((await fetch(`${app.origin}/approvals/rel-0123456789abcdef0123456789abcdef`)).status).toBe(404);
    expect((await fetch(`${app.origin}/approvals/..%2Fetc`)).status).toBe(404);
    expect((await fetch(`${app.origin}/callback?code=x&state=y`)).status).toBe(400);
    // A sign-in starts only for a release someone asked for.
    const unknown = await fetch(`${app.origin}/approvals/rel-0123456789abcdef0123456789abcdef/sign-in`, {
      redirect: "manual",
    });
    expect(unknown.status).toBe(404);
  });

  it("signs in at PUBLIC_URL's callback whatever Host the request names, Secure for an https PUBLIC_URL", async () => {
    const { release } = await askForApproval();
    const started = await fetch(`${app.origin}/approvals/${release}/sign-in`, {
      headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
      redirect: "manual",
    });
    const location = new URL(started.headers.get("location") ?? "");
    expect(location.searchParams.get("redirect_uri")).toBe(PUBLIC_CALLBACK);
    expect(started.headers.get("set-cookie")).toMatch(/^roundtrip_login=[^;]+; Path=\/callback; .*; Secure$/);
  });
});

/** Alice's deploy, up to the approval URL; the release it names. */
async function askForApproval(): Promise<{ release: string }> {
  const client = mcpClient(app.url, aliceToken, watch, { onElicit: () => ({ action: "cancel" }) });
  const first = await client.manualRounds.callTool(
    "deploy",
    { service: "web", env: "staging" },
    { allowInputRequired: true },
  );
  if (!isInputRequiredResult(first)) throw new Error("deploy should ask for confirmation first");
  const second = await client.manualRounds.callTool(
    "deploy",
    { service: "web", env: "staging" },
    {
      allowInputRequired: true,
      requestState: first.requestState,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    },
  );
  const request = isInputRequiredResult(second) ? second.inputRequests?.approval : undefined;
  const url =
    request?.method === "elicitation/create" && request.params.mode === "url" ? request.params.url : "";
  const release = /rel-[0-9a-f]{32}/.exec(url)?.[0];
  if (release === undefined)
    throw new Error(`deploy should ask for approval next, got ${JSON.stringify(second)}`);
  return { release };
}

describe("the approval page's own limits", () => {
  let limited: RunningServer;
  beforeAll(async () => {
    limited = await startServer(
      serverEnvironment(as, {
        RATE_LIMIT_MAX: "3",
        RATE_LIMIT_WINDOW_MS: "600000",
        ALLOWED_HOSTS: "127.0.0.1",
      }),
    );
  });
  afterAll(() => limited?.close());

  it("counts the page and the callback per client address, and answers only its allowed Hosts", async () => {
    const pages = [];
    for (let i = 0; i < 4; i++) pages.push((await fetch(`${limited.origin}/callback?state=x`)).status);
    expect(pages).toEqual([400, 400, 400, 429]);
    expect((await fetch(`${limited.origin}/approvals/rel-x`)).status).toBe(429);
    // fetch always sends the URL's own Host, so the rebound name goes out through node:http.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpGet(
        `${limited.origin}/healthz`,
        { headers: { host: "rebound.example" } },
        (response) => {
          let body = "";
          response.on("data", (chunk) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on("error", reject);
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain("ALLOWED_HOSTS");
  });
});

describe("approvals in one process", () => {
  const alice = { clientId: "mcp-interactive", issuer: "https://as.test", subject: "alice" };

  it("refuses a sign-in answer that leaves out iss when the issuer promises to send it (RFC 9207)", async () => {
    const { release } = await askForApproval();
    const page = `${app.origin}/approvals/${release}`;
    const dropIss = (url: URL) => {
      if (url.pathname === "/callback") url.searchParams.delete("iss");
      return viaInstance(app.origin)(url);
    };
    const answer = await new DevelopmentBrowser("alice").visit(`${page}/sign-in`, app.origin, dropIss);
    expect(answer.url.pathname).toBe("/callback");
    expect(answer.status).toBe(400);
    expect(answer.html).toContain("another issuer");
  });

  it("lets only the requester approve", async () => {
    const store = approvalStore(new MemoryApprovalLedger());
    await requested(store, "rel-00000000000000000000000000000001", {
      service: "api",
      env: "staging",
      principal: alice,
    });

    expect(
      await store.approve("rel-00000000000000000000000000000001", {
        issuer: "https://as.test",
        subject: "bob",
      }),
    ).toBe("not-requester");
    expect(
      await store.approve("rel-00000000000000000000000000000001", {
        issuer: "https://other.test",
        subject: "alice",
      }),
    ).toBe("not-requester");
    expect((await store.status("rel-00000000000000000000000000000001"))?.state).toBe("pending");
    expect(
      await store.approve("rel-00000000000000000000000000000001", {
        issuer: "https://as.test",
        subject: "alice",
      }),
    ).toBe("approved");
    expect((await store.status("rel-00000000000000000000000000000001"))?.state).toBe("approved");
    expect(
      await store.approve("rel-00000000000000000000000000000002", {
        issuer: "https://as.test",
        subject: "alice",
      }),
    ).toBe("unknown");
  });

  it("forgets approvals after their lifetime", async () => {
    let now = 1_000;
    const store = approvalStore(new MemoryApprovalLedger({ now: () => now }), { ttlMs: 60_000 });
    await requested(store, "rel-00000000000000000000000000000003", {
      service: "api",
      env: "staging",
      principal: alice,
    });
    now += 59_999;
    expect((await store.status("rel-00000000000000000000000000000003"))?.state).toBe("pending");
    now += 1;
    expect(await store.status("rel-00000000000000000000000000000003")).toBeUndefined();
  });
});

describe("a release not confirmed yet", () => {
  it("is on record from the first round, and its page shows the requester no Approve button", async () => {
    const client = mcpClient(app.url, aliceToken, watch, { onElicit: () => ({ action: "cancel" }) });
    const first = await client.manualRounds.callTool(
      "deploy",
      { service: "api", env: "staging" },
      { allowInputRequired: true },
    );
    const release = /rel-[0-9a-f]{32}/.exec(JSON.stringify(first))?.[0] ?? "";
    expect(await app.server.approvals.status(release)).toMatchObject({ service: "api", state: "asked" });
    const path = `/approvals/${release}`;
    const alice = new DevelopmentBrowser("alice");
    const page = await alice.visit(`${app.origin}${path}/sign-in`, app.origin, viaInstance(app.origin));
    expect([page.url.pathname, page.status]).toEqual([path, 200]);
    expect(page.html).toContain(
      "Not confirmed yet: answer the confirmation in your MCP client, then reload this page to approve it.",
    );
    expect(firstPostForm(page.html)).toBeUndefined();
    expect(await app.server.approvals.approve(release, { issuer: as.issuer, subject: "alice" })).toBe(
      "unconfirmed",
    );
  });
});
