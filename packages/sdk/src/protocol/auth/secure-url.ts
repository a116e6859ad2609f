import { isLoopbackHost } from "../loopback.js";

/**
 * Parses a URL the resource server will fetch or trust. Authorization endpoints must be HTTPS; plain
 * HTTP is accepted for loopback hosts (local development), or anywhere when explicitly allowed.
 */
export function secureUrl(value: string | URL, what: string, allowInsecureHttp = false): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${what} "${String(value)}" is not an absolute URL`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && (allowInsecureHttp || isLoopbackHost(url.hostname))) return url;
  throw new TypeError(
    `${what} "${url.href}" must use https (http is accepted only for loopback hosts, or with allowInsecureHttp)`,
  );
}
