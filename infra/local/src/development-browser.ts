import { CookieJar } from "./cookie-jar.js";
import { firstPostForm } from "./html-form.js";

/** A page a walk ended on: where it was, its HTTP status and its body. */
export interface VisitedPage {
  url: URL;
  status: number;
  html: string;
}

/** Where a walk ends: the first redirect, left unrequested, or the first page that one of these accepts. */
interface WalkEnd<T> {
  redirect?: (url: URL) => T | undefined;
  page?: (page: VisitedPage) => T | undefined;
  /** Named in errors: what the walk was trying to reach. */
  goal: string;
}

/** The bound keeps a misconfigured flow from bouncing between pages forever; a sign-in takes about ten. */
const MAX_STEPS = 20;

/** The development login page checks no password, but its form still needs one typed in. */
const PASSWORD = "development";

const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };

/**
 * A scripted browser for oidc-provider's development pages: it keeps cookies per origin and path, follows
 * redirects by hand, signs `user` in on the login page and accepts the consent page, the way a person at
 * a browser would. Apps use it to reach their own pages behind a sign-in, clients to reach their
 * redirect URI, and `authorizationCodeToken` to get a code.
 */
export class DevelopmentBrowser {
  readonly #jar = new CookieJar();
  /** The login typed into the sign-in page: `alice` or `bob` unless the server has others. */
  readonly user: string;

  constructor(user: string) {
    this.user = user;
  }

  /** fetch with this browser's cookies, stored from the response too; redirects are not followed. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response> {
    return this.#jar.fetch(url, init);
  }

  /** The value of a cookie this browser holds for `origin`, if any. */
  cookie(origin: string | URL, name: string): string | undefined {
    return this.#jar.get(origin, name);
  }

  /**
   * Opens `start` and follows redirects, signing in and consenting on the authorization server's pages,
   * until a page (a response that is not a redirect) of `home`'s origin, which it returns whatever its
   * status. Redirects within `home` are followed, so an app's own sign-in link and callback lead on to
   * the page they end at.
   */
  async visit(
    start: string | URL,
    home: string | URL,
    /** Lets a test tamper with each redirect before it is followed. */
    rewrite: (url: URL) => URL = (url) => url,
  ): Promise<VisitedPage> {
    const origin = new URL(home).origin;
    const atHome = (page: VisitedPage) => (page.url.origin === origin ? page : undefined);
    return this.#walk(start, { page: atHome, goal: origin }, rewrite);
  }

  /**
   * Opens `start` (an authorization request, or a client's link that leads to one) and walks through the
   * sign-in until the first redirect to `redirectUri` (same origin and path), which it returns without
   * requesting it: that is the authorization response a client's loopback listener would receive, with
   * `code`, `state` and `iss` (or `error`) in its query, and in tests nothing needs to listen there.
   */
  async redirectTo(start: string | URL, redirectUri: string | URL): Promise<URL> {
    const target = new URL(redirectUri);
    const reaches = (url: URL) =>
      url.origin === target.origin && url.pathname === target.pathname ? url : undefined;
    return this.#walk(start, { redirect: reaches, goal: target.href });
  }

  async #walk<T>(
    start: string | URL,
    end: WalkEnd<T>,
    rewrite: (url: URL) => URL = (url) => url,
  ): Promise<T> {
    let url = new URL(start);
    let init: RequestInit = {};
    let signedIn = false;
    for (let step = 0; step < MAX_STEPS; step++) {
      const response = await this.fetch(url, init);
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = rewrite(new URL(location, url));
        const reached = end.redirect?.(url);
        if (reached !== undefined) return reached;
        init = {};
        continue;
      }
      const html = await response.text();
      const reached = end.page?.({ url, status: response.status, html });
      if (reached !== undefined) return reached;
      const form = response.status === 200 ? firstPostForm(html) : undefined;
      if (!form) {
        throw new Error(
          `sign-in on the way to ${end.goal} stopped at ${url.href} with HTTP ${response.status}: ${summary(html)}`,
        );
      }
      if (form.fields.prompt === "login") {
        // A second sign-in page means the account lookup refused the login just typed.
        if (signedIn) throw new Error(`user "${this.user}" is not an account of this authorization server`);
        form.fields.login = this.user;
        form.fields.password = PASSWORD;
        signedIn = true;
      }
      url = new URL(form.action, url);
      init = { method: "POST", headers: FORM_HEADERS, body: new URLSearchParams(form.fields) };
    }
    throw new Error(`sign-in did not reach ${end.goal} within ${MAX_STEPS} steps`);
  }
}

/** A page's text without its tags, short enough for an error message. */
function summary(page: string): string {
  return page
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
}
