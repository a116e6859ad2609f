/**
 * A person's browser for the sign-in: cookies per origin, redirects followed by hand, and the
 * development authorization server's sign-in and consent forms submitted as `user`. It walks from the
 * URL the CLI printed to the CLI's loopback callback and returns that last page.
 *
 * @roundtrip/local-auth walks the same pages with its own cookie jar but keeps it to itself (only
 * `authorizationCodeToken` is exported, and it redeems the code itself), hence this copy.
 */
export async function signInThroughBrowser(
  start: string,
  user: string,
  stopAt: (url: URL) => boolean,
): Promise<{ url: URL; status: number; body: string }> {
  const cookies = new Map<string, string>();
  const send = async (url: URL, init: RequestInit) => {
    const headers = new Headers(init.headers);
    const jar = [...cookies.entries()]
      .filter(([key]) => key.startsWith(`${url.origin} `))
      .map(([key, value]) => `${key.split(" ")[1]}=${value}`)
      .join("; ");
    if (jar) headers.set("cookie", jar);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = /max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === "";
      if (expired) cookies.delete(`${url.origin} ${name}`);
      else cookies.set(`${url.origin} ${name}`, value);
    }
    return response;
  };
  let url = new URL(start);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const response = await send(url, init);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      init = {};
      continue;
    }
    const body = await response.text();
    if (stopAt(url)) return { url, status: response.status, body };
    const form = firstPostForm(body);
    if (!form)
      throw new Error(`sign-in stuck at ${url.href} (HTTP ${response.status}): ${body.slice(0, 200)}`);
    if (form.fields.prompt === "login") {
      form.fields.login = user;
      form.fields.password = "development";
    }
    url = new URL(form.action, url);
    init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form.fields),
    };
  }
  throw new Error("the sign-in did not reach the callback within 20 steps");
}

function firstPostForm(html: string): { action: string; fields: Record<string, string> } | undefined {
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
