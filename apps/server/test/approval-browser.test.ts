import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_CLIENTS,
  DEFAULT_REDIRECT_URI,
  type LocalAuthServer,
  startLocalAuthServer,
} from "@roundtrip/local-auth";
import { freePort, openChromium } from "@roundtrip/test-services";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

// The few browser globals the functions run in the page touch: this suite's TypeScript has no DOM library.
declare const document: {
  activeElement: { id: string; tagName: string; textContent: string | null } | null;
  body: { append(node: unknown): void };
  createElement(tag: "img"): { src: string };
  addEventListener(
    type: string,
    listener: (event: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
};
declare const window: {
  reportViolation(text: string): void;
  axe: { run(): Promise<{ violations: { id: string; impact: string; help: string }[]; passes: unknown[] }> };
};

/** Git-ignored: screenshots a person looks at after a run. */
const SCREENSHOTS = fileURLToPath(new URL("../test-results/approval-page/", import.meta.url));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
/** Generous: a busy machine may take a while, and every wait is for a condition, not a duration. */
const DEADLINE = { timeout: 60_000 };

let as: LocalAuthServer;
let app: RunningServer;
let aliceToken: string;
const watch = new LeakWatch();

// The browser talks to the server at its public URL, so that URL is the server's own address: the
// port is picked first and the authorization server told of its callback.
beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}/mcp`;
  as = await startLocalAuthServer({
    resource: [publicUrl],
    clients: DEFAULT_CLIENTS.map((client) =>
      client.kind === "interactive"
        ? { ...client, redirectUris: [DEFAULT_REDIRECT_URI, new URL("/callback", publicUrl).href] }
        : client,
    ),
  });
  app = await startServer({
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    OAUTH_ISSUER: as.issuer,
    LOG_LEVEL: "info",
  });
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
}, 120_000);

/** Calls a test left waiting for its approval: each is stopped and settled before the server closes. */
const unfinished: { stop: AbortController; done: Promise<unknown> }[] = [];

afterAll(async () => {
  for (const call of unfinished) call.stop.abort();
  await Promise.allSettled(unfinished.map((call) => call.done));
  await app?.close();
  await as?.close();
});

const textOf = (result: { content: unknown[] }) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("");

const deployments = () => app.logs.lines().filter((line) => line.msg === "release deployed").length;

/** Alice's deploy, confirmed, up to the approval URL; `done` settles with the tool's result. */
async function aliceDeploys(service: string) {
  let opened: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    opened = resolve;
  });
  const client = mcpClient(app.url, aliceToken, watch, {
    inputRequiredMaxRounds: 500,
    onElicit: (params) => {
      if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
      opened(params.url);
      return { action: "accept" };
    },
  });
  const stop = new AbortController();
  const done = client.callTool("deploy", { service, env: "production" }, { signal: stop.signal });
  // A test that never approves leaves its call polling; it ends with the file, not after the server.
  unfinished.push({ stop, done: done.catch(() => {}) });
  return { url: await url, done };
}

/** What went wrong on the server's pages: console errors and CSP violations, as they happen. */
async function watchPages(context: BrowserContext): Promise<string[]> {
  const problems: string[] = [];
  const ours = (url: string) => url.startsWith(app.origin);
  context.on("console", (message) => {
    if (message.type() === "error" && ours(message.page()?.url() ?? "")) {
      problems.push(`console: ${message.text()}`);
    }
  });
  // DevTools-injected scripts run whatever the page's CSP, so the listener sees the page's own violations.
  await context.exposeBinding("reportViolation", ({ page }, text: string) => {
    if (ours(page.url())) problems.push(`CSP: ${text}`);
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      window.reportViolation(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return problems;
}

/** Opens the approval URL, follows Sign in through the authorization server's own pages, as `user`. */
async function signIn(page: Page, url: string, user: string): Promise<void> {
  await page.goto(url);
  await page.getByRole("link", { name: "Sign in" }).click();
  await page.waitForURL((at) => at.origin === new URL(as.issuer).origin, DEADLINE);
  await page.locator('input[name="login"]').fill(user, DEADLINE);
  await page.locator('input[name="password"]').fill("development");
  await page.locator('button[type="submit"]').click();
  // The consent page, then back to the release.
  await page.locator('button[type="submit"]').click(DEADLINE);
  await page.waitForURL((at) => at.href === url, DEADLINE);
}

async function screenshot(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    const path = join(SCREENSHOTS, `${name}-${size}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`approval page screenshot: ${path}`);
  }
}

describe("the approval page in Chromium", () => {
  it("shows alice her release; Approve deploys it once; no console errors or CSP violations", async () => {
    const before = deployments();
    const { url, done } = await aliceDeploys("ledger");
    const browser = await openChromium({ viewport: DESKTOP });
    const { context } = browser;
    try {
      const problems = await watchPages(context);
      const page = await context.newPage();
      await signIn(page, url, "alice");

      expect(await page.locator("dt").allTextContents()).toEqual([
        "Change",
        "Service",
        "Environment",
        "Asked by",
        "Asked at",
      ]);
      expect(await page.locator("dd").allTextContents()).toEqual([
        "Deploy ledger to production",
        "ledger",
        "production",
        "alice, with the client mcp-interactive",
        expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/),
      ]);
      expect(await page.getByLabel("Reason for rejecting").isVisible()).toBe(true);
      await screenshot(page, "pending");

      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("status").filter({ hasText: "Approved" }).first().waitFor(DEADLINE);
      expect(textOf(await done)).toMatch(/^Deployed rel-[0-9a-f]{32} of ledger to production$/);
      expect(deployments() - before).toBe(1);
      await page.reload();
      await page.getByText("Approved and deployed at").waitFor(DEADLINE);
      expect(await page.getByRole("button").count()).toBe(0);
      await screenshot(page, "deployed");
      expect(problems).toEqual([]);

      // The watch itself sees a violation: an image from elsewhere, added by DevTools, is refused.
      await page.evaluate(() => {
        const image = document.createElement("img");
        image.src = "https://elsewhere.invalid/pixel.png";
        document.body.append(image);
      });
      await expect
        .poll(() => problems.join("\n"), DEADLINE)
        .toContain("CSP: img-src blocked https://elsewhere.invalid/pixel.png");
    } finally {
      await browser.close();
    }
  });

  it("rejects with a reason, by keyboard alone; the tool answers who rejected it and why, and deploys nothing", async () => {
    const before = deployments();
    const { url, done } = await aliceDeploys("billing");
    const browser = await openChromium({ viewport: PHONE });
    const { context } = browser;
    try {
      const problems = await watchPages(context);
      const page = await context.newPage();
      await signIn(page, url, "alice");

      const reason = "Freeze until <b>Monday</b> & the audit";
      const focused = () =>
        page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName);
      for (let presses = 0; presses < 10 && (await focused()) !== "reason"; presses++) {
        await page.keyboard.press("Tab");
      }
      expect(await focused()).toBe("reason");
      await page.keyboard.type(reason);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Reject");
      await page.keyboard.press("Enter");

      await page.locator("blockquote").waitFor(DEADLINE);
      // The reason is shown as text: its markup was escaped, not rendered.
      expect(await page.locator("blockquote").textContent()).toBe(reason);
      expect(await page.locator("blockquote b").count()).toBe(0);
      expect(await page.getByRole("status").textContent()).toMatch(/^Rejected by alice at /);
      await screenshot(page, "rejected");

      const result = await done;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Release rel-[0-9a-f]{32} was rejected by alice: /);
      expect(textOf(result)).toContain(`rejected by alice: ${reason}`);
      expect(deployments() - before).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("refuses bob, showing nothing of alice's release", async () => {
    const { url } = await aliceDeploys("payroll");
    const browser = await openChromium({ viewport: DESKTOP });
    const { context } = browser;
    try {
      const problems = await watchPages(context);
      const page = await context.newPage();
      await signIn(page, url, "bob");
      await page.getByText("Only the user who asked for this deployment can review it.").waitFor(DEADLINE);
      const shown = (await page.locator("body").textContent()) ?? "";
      for (const secret of ["payroll", "production", "alice"]) expect(shown).not.toContain(secret);
      expect(await page.locator("form").count()).toBe(0);
      await screenshot(page, "refused");
      // Chromium reports a page's error status on the console; that is the only message.
      expect(problems).toEqual([
        "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
      ]);
    } finally {
      await browser.close();
    }
  });

  it("passes an axe-core accessibility check, signed out and with the release open", async () => {
    const { url } = await aliceDeploys("search");
    // The page's CSP forbids every script, axe's included: this context alone bypasses it, to inject axe.
    const browser = await openChromium({ viewport: PHONE, bypassCSP: true });
    const { context } = browser;
    const axe = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    const check = async (page: Page) => {
      await page.addScriptTag({ content: axe });
      return page.evaluate(async () => {
        const { violations, passes } = await window.axe.run();
        // Rules that passed show the check ran on the page rather than on nothing.
        return {
          violations: violations.map(({ id, impact, help }) => ({ id, impact, help })),
          passed: passes.length,
        };
      });
    };
    try {
      const page = await context.newPage();
      await page.goto(url);
      expect(await check(page)).toEqual({ violations: [], passed: expect.any(Number) });
      await screenshot(page, "sign-in");
      await signIn(page, url, "alice");
      const signedIn = await check(page);
      expect(signedIn.violations).toEqual([]);
      expect(signedIn.passed).toBeGreaterThan(10);
    } finally {
      await browser.close();
    }
  });
});
