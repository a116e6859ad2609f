import { highlightHost } from "../browser.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

/**
 * The last lines before a question about a URL, after whatever the server wrote: the URL as it will be
 * opened (parsed, so it is percent-encoded ASCII with a punycode host) and, on a line of its own, the
 * host it really leads to. Each starts with a style reset, so nothing drawn before can colour them. The
 * host is emphasised in both, by colour only, so the URL stays whole and can be copied.
 */
export function urlLines(url: URL, terminal: Terminal): string[] {
  const reset = terminal.reset();
  // Escaped before it is emphasised: escaping the URL with its emphasis would print our own style
  // sequences as text. The rest of a parsed URL holds no control, and notice() escapes any that did.
  const strongHost = (host: string) => terminal.strong(safeInline(host));
  return [
    `${reset}  URL:  ${highlightHost(url.href, strongHost)}`,
    `${reset}  Host: ${strongHost(url.host)}   (open it only if you trust that site)`,
  ];
}
