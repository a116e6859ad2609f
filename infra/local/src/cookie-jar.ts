interface StoredCookie {
  origin: string;
  path: string;
  name: string;
  value: string;
}

/**
 * Just enough of a browser's cookie handling for a walk between an app and this authorization server:
 * name, value and path, with removal on an expired cookie. Cookies are kept per origin rather than per
 * host, so two servers on different ports of 127.0.0.1 do not see each other's cookies (stricter than a
 * browser, and nothing here depends on the sharing). Domain, Secure and SameSite do not matter on loopback.
 */
export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** fetch with this jar's cookies, redirects left to the caller. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.#headerFor(target);
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(target, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) this.#store(line, target);
    return response;
  }

  /** The value of cookie `name` held for `origin` (any path), if any. */
  get(origin: string | URL, name: string): string | undefined {
    const wanted = new URL(origin).origin;
    for (const cookie of this.#cookies.values()) {
      if (cookie.origin === wanted && cookie.name === name) return cookie.value;
    }
    return undefined;
  }

  #headerFor(url: URL): string {
    return [...this.#cookies.values()]
      .filter((cookie) => cookie.origin === url.origin && pathMatches(url.pathname, cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join("; ");
  }

  #store(line: string, url: URL): void {
    const [pair = "", ...attributes] = line.split(";");
    const separator = pair.indexOf("=");
    if (separator <= 0) return;
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    let path = defaultPath(url.pathname);
    let expired = false;
    for (const attribute of attributes) {
      const [key = "", raw = ""] = attribute.split("=", 2).map((part) => part.trim());
      const lower = key.toLowerCase();
      if (lower === "path" && raw.startsWith("/")) path = raw;
      if (lower === "max-age" && Number(raw) <= 0) expired = true;
      if (lower === "expires" && Date.parse(raw) <= Date.now()) expired = true;
    }
    const key = `${url.origin} ${path} ${name}`;
    if (expired) this.#cookies.delete(key);
    else this.#cookies.set(key, { origin: url.origin, path, name, value });
  }
}

/** RFC 6265 section 5.1.4: the directory of the request path, so a page's siblings get its cookie. */
function defaultPath(pathname: string): string {
  const last = pathname.lastIndexOf("/");
  return last <= 0 ? "/" : pathname.slice(0, last);
}

/** RFC 6265 section 5.1.4: `/a` matches `/a` and `/a/b`, not `/ab`. */
function pathMatches(pathname: string, path: string): boolean {
  if (!pathname.startsWith(path)) return false;
  return pathname.length === path.length || path.endsWith("/") || pathname[path.length] === "/";
}
