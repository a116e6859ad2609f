// alice's browser: the demo plays the person at the other end of the CLI's sign-in and of the deploy's
// approval page, on the development authorization server's sign-in pages. One browser per run, so the
// approval's sign-in finds the session the login left.
import { DevelopmentBrowser, firstPostForm, type VisitedPage } from "@roundtrip/local-auth";
import { DemoFailure } from "./failures.js";
import { screenshotPage } from "./page-screenshot.js";

export interface AliceBrowser {
  /** Follows the CLI's sign-in URL through the sign-in pages to the CLI's loopback callback. */
  signIn(start: string): Promise<VisitedPage>;
  /** Opens the approval page, signs in from its link, and presses Approve; returns the release. */
  approve(url: string, log: (line: string) => void): Promise<string | undefined>;
}

export function aliceBrowser(): AliceBrowser {
  const alice = new DevelopmentBrowser("alice");
  return {
    signIn: (start) => alice.visit(start, start),
    async approve(url, log) {
      const page = new URL(url);
      const release = page.pathname.split("/").pop();
      log(`alice opens ${page.href}`);
      const first = await alice.visit(page.href, page.origin);
      const stillIn = first.status === 200 && firstPostForm(first.html) !== undefined;
      if (stillIn) log("alice is still signed in on the server's page from her last approval");
      const signedIn = stillIn ? first : await signInFrom(first, page, alice, log);
      const form = firstPostForm(signedIn.html);
      if (signedIn.status !== 200 || form === undefined) {
        throw new DemoFailure(
          `after signing in, ${signedIn.url.href} shows no Approve button (HTTP ${signedIn.status})`,
        );
      }
      await showPage(page, alice, log);
      const response = await alice.fetch(new URL(form.action, page), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form.fields),
      });
      const body = await response.text();
      if (response.status !== 200) {
        throw new DemoFailure(`approving ${release} failed: HTTP ${response.status} ${body.slice(0, 120)}`);
      }
      log(`alice pressed Approve: the server recorded ${release} as approved by its requester`);
      return release;
    },
  };
}

/**
 * The page as it shows after alice signs in from its link; a page that already shows the Approve button
 * found her still signed in from an earlier approval, and needs none.
 */
async function signInFrom(
  anonymous: VisitedPage,
  page: URL,
  alice: DevelopmentBrowser,
  log: (line: string) => void,
): Promise<VisitedPage> {
  const signIn = /href="([^"]*\/sign-in)"/.exec(anonymous.html)?.[1];
  if (anonymous.status !== 200 || signIn === undefined) {
    throw new DemoFailure(`the approval page ${page.href} offers no sign-in (HTTP ${anonymous.status})`);
  }
  log("signing in as alice on the development authorization server");
  return alice.visit(new URL(signIn, page).href, page.origin);
}

/** The server's sign-in cookie for the page, under the name and path the reference server gives it. */
const APPROVER_COOKIE = { name: "roundtrip_approver", path: "/approvals" };

/** Where a screenshot of the page alice is about to approve was saved, when Chromium is here to take one. */
async function showPage(page: URL, alice: DevelopmentBrowser, log: (line: string) => void): Promise<void> {
  const value = alice.cookie(page.origin, APPROVER_COOKIE.name);
  if (value === undefined) return;
  try {
    const path = await screenshotPage(page, { ...APPROVER_COOKIE, value });
    if (path !== undefined) log(`the page alice approves, as Chromium shows it: ${path}`);
  } catch (error) {
    // A picture is not worth failing the demo over.
    log(`no screenshot of the page: ${error instanceof Error ? error.message : String(error)}`);
  }
}
