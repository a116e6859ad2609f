import { RedirectRefusedError } from "./http-errors.js";

/** The statuses the Fetch standard follows. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Wraps fetch so that no MCP request follows a redirect. fetch would re-send a 307's or 308's POST
 * body, answers and requestState included, to whatever origin the Location names; "manual" makes the
 * redirect an answer instead, which becomes RedirectRefusedError. A fetch that ignores the option
 * (some custom ones) is caught by the 3xx status all the same.
 */
export function refuseRedirects(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, { ...init, redirect: "manual" });
    // Browsers hide a manual redirect as an opaque response with status 0.
    const redirected = response.type === "opaqueredirect" || REDIRECT_STATUSES.has(response.status);
    if (!redirected) return response;
    await response.body?.cancel();
    const url = input instanceof Request ? input.url : String(input);
    throw new RedirectRefusedError(url, response.status, response.headers.get("location") ?? undefined);
  };
}
