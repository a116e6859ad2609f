/**
 * Text a server supplies (messages, field titles, names, prompts, results, error messages), made safe
 * to show in a terminal. A terminal obeys control sequences wherever they appear, so a server that can
 * put ESC, CSI or OSC in a string can move the cursor, draw over our own lines, write the clipboard
 * (OSC 52), set the window title or hide a link target (OSC 8); bidi controls can reorder what a host
 * name looks like. Every such code point is shown as a visible escape instead (`\x1b`, `\u202e`), so
 * nothing is hidden and nothing is obeyed. --json output never goes through here: JSON escapes already.
 */

/** Escapes short enough to read at a glance; every other unsafe code point gets its hex form. */
const NAMED: Readonly<Record<number, string>> = { 9: "\\t", 10: "\\n", 13: "\\r" };

/** C0 and C1 controls, DEL, and the Unicode controls that reorder or break lines without showing. */
export function isUnsafeCodePoint(codePoint: number): boolean {
  return (
    codePoint <= 0x1f ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    codePoint === 0x061c ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    (codePoint >= 0x2028 && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    // A lone surrogate would reach the terminal as U+FFFD, hiding what was sent.
    (codePoint >= 0xd800 && codePoint <= 0xdfff)
  );
}

function escapeOf(codePoint: number): string {
  const named = NAMED[codePoint];
  if (named !== undefined) return named;
  return codePoint <= 0xff
    ? `\\x${codePoint.toString(16).padStart(2, "0")}`
    : `\\u${codePoint.toString(16).padStart(4, "0")}`;
}

function escapeUnsafe(text: string, keepNewlines: boolean): string {
  let out = "";
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    out += isUnsafeCodePoint(codePoint) && !(keepNewlines && codePoint === 0x0a) ? escapeOf(codePoint) : char;
  }
  return out;
}

/** For one line of our UI (a label, a prompt, a choice): newlines are escaped too. */
export function safeInline(text: string): string {
  return escapeUnsafe(text, false);
}

/** What starts each further line of server text under its label: no line of our own starts so. */
export const UNDER_LABEL = "  │ ";

/**
 * For text that may span lines (a message, a result): its lines stay lines, and every line after the
 * first starts with `indent`, so the text stays under its label and cannot pass for a line of our own.
 */
export function safeBlock(text: string, indent = ""): string {
  // A line break from another platform is still only a line break; a lone CR (which rewrites the line) is not.
  return escapeUnsafe(text.replaceAll("\r\n", "\n"), true).replaceAll("\n", `\n${indent}`);
}

// Built from a string so that the escape character is not a literal control character in the source.
const ESC = String.fromCharCode(0x1b);
/**
 * The styles our own lines use (bold, dim, yellow, their ends, and reset), exactly as node:util's
 * styleText writes them: no other sequence, not even another colour, passes for one of ours.
 */
const OWN_STYLE = new RegExp(`${ESC}\\[(?:0|1|2|22|33|39)m`, "y");

/**
 * A line of our own UI as a whole, for the last check before it is written: with `styles`, our styles
 * pass; every other control is escaped. Server text in it must already have gone through safeInline
 * or safeBlock, which escape ESC, so what passes here as a style is ours; without colours no style
 * passes at all.
 */
export function safeOwnLine(line: string, styles = true): string {
  let out = "";
  let at = 0;
  while (at < line.length) {
    OWN_STYLE.lastIndex = at;
    const style = styles ? OWN_STYLE.exec(line) : null;
    if (style) {
      out += style[0];
      at += style[0].length;
      continue;
    }
    const codePoint = line.codePointAt(at) as number;
    const char = String.fromCodePoint(codePoint);
    out += isUnsafeCodePoint(codePoint) && codePoint !== 0x0a ? escapeOf(codePoint) : char;
    at += char.length;
  }
  return out;
}
