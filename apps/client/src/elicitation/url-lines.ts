import { highlightHost } from "../browser.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

/**
 * The last lines before a question about a URL, after whatever the server wrote: the URL as it will be
 * opened (parsed, so it is percent-encoded ASCII with a punycode host) and, on a line of its own, the
 * host it really leads to. Each starts with a style reset, so nothing drawn before can colour them; the
 * host is emphasised only on its own line, so the URL stays whole and can be copied.
 */
export function urlLines(url: URL, terminal: Terminal): string[] {
  const reset = terminal.reset();
  return [
    `${reset}  URL:  ${safeInline(highlightHost(url.href, terminal.strong))}`,
    `${reset}  Host: ${terminal.strong(safeInline(url.host))}   (open it only if you trust that site)`,
  ];
}
