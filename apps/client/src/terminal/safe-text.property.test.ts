import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isUnsafeCodePoint, safeBlock, safeInline } from "./safe-text.js";

/** Code points a hostile server would use, among ordinary text and any code point at all. */
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).filter((c) => c !== 0x5c) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x7f, max: 0x9f }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0x1b, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2069, 0x200e, 0x200f),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xa0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff) },
);
/** Whole sequences, so that CSI, OSC 8, OSC 52 and title sets are generated as a terminal reads them. */
const sequence = fc.constantFrom(
  "\x1b[2K\r",
  "\x1b[1A",
  "\x1b]52;c;ZXZpbA==\x07",
  "\x1b]0;title\x1b\\",
  "\x1b]8;;https://evil.example\x1b\\",
  "\x1b[31m",
  "\x9b2J",
);
const hostile = fc
  .array(
    fc.oneof(
      unit.map((c) => String.fromCodePoint(c)),
      sequence,
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(""));

const codePoints = (text: string) => [...text].map((c) => c.codePointAt(0)!);

/** Reads the escapes back; only meaningful for text without a backslash of its own. */
function readEscapes(shown: string): string {
  return shown.replace(/\\(t|n|r|x[0-9a-f]{2}|u[0-9a-f]{4})/g, (_, code: string) => {
    if (code === "t") return "\t";
    if (code === "n") return "\n";
    if (code === "r") return "\r";
    return String.fromCharCode(Number.parseInt(code.slice(1), 16));
  });
}

describe("safe text, for any string a server may send", () => {
  it("never leaves a control, a bidi control or a lone surrogate in a line", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(codePoints(safeInline(text)).filter(isUnsafeCodePoint)).toEqual([]);
      }),
    );
  });

  it("shows every code point: without backslashes of its own, the escapes read back to what was sent", () => {
    // A backslash is shown as it is (paths, regexes), so only text without one reads back unambiguously.
    fc.assert(
      fc.property(
        hostile.filter((text) => !text.includes("\\")),
        (text) => {
          expect(readEscapes(safeInline(text))).toBe(text);
        },
      ),
    );
  });

  it("keeps a block's newlines as its only control, and each further line indented", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const shown = safeBlock(text, "  | ");
        expect(codePoints(shown).filter((c) => c !== 0x0a && isUnsafeCodePoint(c))).toEqual([]);
        const lines = shown.split("\n");
        expect(lines.length).toBe(text.replaceAll("\r\n", "\n").split("\n").length);
        for (const line of lines.slice(1)) expect(line.startsWith("  | ")).toBe(true);
      }),
    );
  });
});
