import { describe, expect, it } from "vitest";
import { isUnsafeCodePoint, safeBlock, safeInline, safeOwnLine, UNDER_LABEL } from "./safe-text.js";

const ESC = "\x1b";

describe("server text in a terminal", () => {
  it("shows ESC, CSI and OSC sequences instead of obeying them", () => {
    expect(safeInline(`${ESC}[2J${ESC}[1;1Hhi`)).toBe("\\x1b[2J\\x1b[1;1Hhi");
    // OSC 52 (clipboard), OSC 0 (window title) and OSC 8 (a link with a hidden target).
    expect(safeInline(`${ESC}]52;c;ZXZpbA==\x07`)).toBe("\\x1b]52;c;ZXZpbA==\\x07");
    expect(safeInline(`${ESC}]0;title${ESC}\\`)).toBe("\\x1b]0;title\\x1b\\");
    expect(safeInline(`${ESC}]8;;https://evil.example${ESC}\\trusted${ESC}]8;;${ESC}\\`)).toBe(
      "\\x1b]8;;https://evil.example\\x1b\\trusted\\x1b]8;;\\x1b\\",
    );
  });

  it("escapes C0, DEL, C1 and the bidi and line controls, and leaves other text alone", () => {
    expect(safeInline("a\tb\r\nc\x00\x7f\x9b")).toBe("a\\tb\\r\\nc\\x00\\x7f\\x9b");
    expect(safeInline("\u202elpmaxe.live\u202c")).toBe("\\u202elpmaxe.live\\u202c");
    expect(safeInline("\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029")).toBe(
      "\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u2028\\u2029",
    );
    expect(safeInline("\ud800 lone")).toBe("\\ud800 lone");
    expect(safeInline("Zürich 東京 🚀 \\ plain")).toBe("Zürich 東京 🚀 \\ plain");
    expect(isUnsafeCodePoint("a".codePointAt(0)!)).toBe(false);
  });

  it("keeps the lines of a block, each further one indented under its label", () => {
    expect(safeBlock("first\nsecond\r\nthird", UNDER_LABEL)).toBe(
      `first\n${UNDER_LABEL}second\n${UNDER_LABEL}third`,
    );
    // A lone CR would send the cursor back over the label.
    expect(safeBlock("ok\rfake", UNDER_LABEL)).toBe("ok\\rfake");
    expect(safeBlock("a\n\x1b[1Ab")).toBe("a\n\\x1b[1Ab");
  });

  it("lets our own styles through a line of ours, and nothing else", () => {
    const styled = `${ESC}[1m${ESC}[33mhost${ESC}[39m${ESC}[22m rest${ESC}[0m`;
    expect(safeOwnLine(styled)).toBe(styled);
    expect(safeOwnLine(`${ESC}]52;c;eA==\x07 ${ESC}[2K`)).toBe("\\x1b]52;c;eA==\\x07 \\x1b[2K");
    // Server text already escaped stays as it is: escaping twice changes nothing.
    const once = safeInline(`${ESC}[31mred`);
    expect(safeOwnLine(once)).toBe(once);
    // Only our own styles: not another colour, not conceal, and nothing at all without colours.
    expect(safeOwnLine(`${ESC}[31m${ESC}[8m`)).toBe("\\x1b[31m\\x1b[8m");
    expect(safeOwnLine(`${ESC}[1mbold${ESC}[22m`, false)).toBe("\\x1b[1mbold\\x1b[22m");
  });
});
