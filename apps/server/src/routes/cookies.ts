import type { FastifyRequest } from "fastify";

/** The request's cookies by name; the page's own values need no unquoting or decoding. */
export function cookiesOf(request: FastifyRequest): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0) cookies[part.slice(0, separator).trim()] = part.slice(separator + 1).trim();
  }
  return cookies;
}

export interface CookieScope {
  path: string;
  maxAgeS: number;
  /** Set for pages served over https; a plain-http local run would otherwise never get the cookie back. */
  secure: boolean;
}

/**
 * A Set-Cookie value out of reach of scripts (HttpOnly) and of cross-site posts (SameSite=Lax), while
 * still sent on the top-level redirect back from the authorization server.
 */
export function setCookie(name: string, value: string, scope: CookieScope): string {
  return `${name}=${value}; Path=${scope.path}; Max-Age=${scope.maxAgeS}; HttpOnly; SameSite=Lax${scope.secure ? "; Secure" : ""}`;
}
