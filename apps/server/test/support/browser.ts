/**
 * Just enough of a browser for the approval page: cookies per origin and path, redirects followed by
 * hand, and the sign-in and consent forms of infra/local's development pages submitted as a user
 * would (the same walk as its authorizationCodeToken, which keeps its jar and forms to itself).
 */
export class Browser {
  readonly #cookies = new Map<string, { origin: string; path: string; value: string }>();

  constructor(readonly user: string) {}

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = [...this.#cookies.entries()]
      .filter(([, c]) => c.origin === target.origin && target.pathname.startsWith(c.path))
      .map(([key, c]) => `${key.split(";")[1]}=${c.value}`)
      .join("; ");
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(target, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) this.#store(line, target);
    return response;
  }

  /** The value of a cookie this browser holds for `origin`, if any. */
  cookie(origin: string, name: string): string | undefined {
    return [...this.#cookies.entries()].find(
      ([key, c]) => c.origin === origin && key.endsWith(`;${name}`),
    )?.[1].value;
  }

  /** Opens `start` and follows redirects, signing in on the authorization server's pages, until a page of `home`. */
  async visit(
    start: string,
    home: string,
    /** Lets a test tamper with a redirect before it is followed. */
    rewrite: (url: URL) => URL = (url) => url,
  ): Promise<{ url: URL; status: number; html: string }> {
    let url = new URL(start);
    let init: RequestInit = {};
    for (let step = 0; step < 20; step++) {
      const response = await this.fetch(url, init);
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = rewrite(new URL(location, url));
        init = {};
        continue;
      }
      const html = await response.text();
      if (url.origin === new URL(home).origin) return { url, status: response.status, html };
      const form = postForm(html);
      if (!form) throw new Error(`stuck at ${url.href} (HTTP ${response.status})`);
      if (form.fields.prompt === "login") {
        form.fields.login = this.user;
        form.fields.password = "development";
      }
      url = new URL(form.action, url);
      init = {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form.fields),
      };
    }
    throw new Error(`no page of ${home} within 20 steps`);
  }

  #store(line: string, url: URL): void {
    const [pair = "", ...attributes] = line.split(";");
    const separator = pair.indexOf("=");
    if (separator <= 0) return;
    const name = pair.slice(0, separator).trim();
    let path = url.pathname;
    let expired = false;
    for (const attribute of attributes) {
      const [key = "", raw = ""] = attribute.split("=", 2).map((part) => part.trim());
      if (key.toLowerCase() === "path" && raw.startsWith("/")) path = raw;
      if (key.toLowerCase() === "max-age" && Number(raw) <= 0) expired = true;
      if (key.toLowerCase() === "expires" && Date.parse(raw) <= Date.now()) expired = true;
    }
    const key = `${url.origin}${path};${name}`;
    if (expired) this.#cookies.delete(key);
    else this.#cookies.set(key, { origin: url.origin, path, value: pair.slice(separator + 1).trim() });
  }
}

/** The first POST form of a small, regular page: its action and prefilled fields. */
export function postForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const attributes = attributesOf(form[1] ?? "");
  if (attributes.method?.toLowerCase() !== "post" || attributes.action === undefined) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? "").matchAll(/<input\b[^>]*>/gi)) {
    const field = attributesOf(input[0]);
    if (field.name !== undefined) fields[field.name] = field.value ?? "";
  }
  return { action: attributes.action, fields };
}

function attributesOf(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, name, value] of tag.matchAll(/([a-zA-Z_:-]+)\s*=\s*"([^"]*)"/g)) {
    if (name !== undefined && value !== undefined) {
      attributes[name.toLowerCase()] = value.replace(/&amp;/g, "&").replace(/&quot;/g, '"');
    }
  }
  return attributes;
}
