import type { AuthorizationRedirect } from "@roundtrip/sdk/oauth";

/**
 * The user agent of an authorization code flow against oidc-provider's development pages: it follows
 * redirects with a cookie jar, signs `user` in on the login form, accepts the consent form, and stops at
 * the redirect URI, whose query parameters it returns. Each authorization URL it was sent to is kept.
 */
export interface ScriptedBrowser extends AuthorizationRedirect {
  visited: URL[];
}

const MAX_STEPS = 12;

export function scriptedBrowser(user: string, redirectUri: string): ScriptedBrowser {
  const cookies = new Map<string, string>();
  const visited: URL[] = [];

  async function request(url: URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) {
      headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    }
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      if (separator <= 0) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      // oidc-provider clears a cookie by expiring it with an empty value.
      if (value === "" || /max-age=0/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  }

  return {
    redirectUri,
    visited,
    async authorize(authorizationUrl) {
      visited.push(authorizationUrl);
      const callback = new URL(redirectUri);
      let url = authorizationUrl;
      let init: RequestInit = {};
      for (let step = 0; step < MAX_STEPS; step++) {
        const response = await request(url, init);
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel();
          const next = new URL(location, url);
          if (next.origin === callback.origin && next.pathname === callback.pathname)
            return next.searchParams;
          url = next;
          init = {};
          continue;
        }
        const page = await response.text();
        const form = /<form\b[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(page);
        if (!form?.[1]) throw new Error(`sign-in stopped at ${url.pathname} with HTTP ${response.status}`);
        const fields = new URLSearchParams();
        for (const input of (form[2] ?? "").matchAll(/<input\b[^>]*>/gi)) {
          const name = /name="([^"]*)"/.exec(input[0])?.[1];
          if (name !== undefined) fields.set(name, /value="([^"]*)"/.exec(input[0])?.[1] ?? "");
        }
        if (fields.get("prompt") === "login") {
          fields.set("login", user);
          fields.set("password", "development");
        }
        url = new URL(form[1].replace(/&amp;/g, "&"), url);
        init = {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: fields,
        };
      }
      throw new Error(`sign-in did not reach ${redirectUri} within ${MAX_STEPS} steps`);
    },
  };
}
