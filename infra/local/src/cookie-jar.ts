interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/**
 * Just enough of a browser's cookie handling to walk the login pages of one host: name, value and
 * path, with removal on an expired cookie. Domain, Secure and SameSite do not matter on one loopback host.
 */
export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** fetch with this jar's cookies, redirects left to the caller. */
  async fetch(url: URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.#headerFor(url);
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) this.#store(line, url);
    return response;
  }

  #headerFor(url: URL): string {
    return [...this.#cookies.values()]
      .filter((cookie) => url.pathname.startsWith(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join("; ");
  }

  #store(line: string, url: URL): void {
    const [pair = "", ...attributes] = line.split(";");
    const separator = pair.indexOf("=");
    if (separator <= 0) return;
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    let path = url.pathname;
    let expired = false;
    for (const attribute of attributes) {
      const [key = "", raw = ""] = attribute.split("=", 2).map((part) => part.trim());
      const lower = key.toLowerCase();
      if (lower === "path" && raw.startsWith("/")) path = raw;
      if (lower === "max-age" && Number(raw) <= 0) expired = true;
      if (lower === "expires" && Date.parse(raw) <= Date.now()) expired = true;
    }
    const key = `${name};${path}`;
    if (expired) this.#cookies.delete(key);
    else this.#cookies.set(key, { name, value, path });
  }
}
