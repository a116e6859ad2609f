import { describe, expect, it } from "vitest";
import { encodeUtf8SurrogatePass, isWellFormed } from "./utf8.js";

describe("encodeUtf8SurrogatePass", () => {
  it("is plain UTF-8 for well-formed text", () => {
    expect(encodeUtf8SurrogatePass("héllo 😀").equals(Buffer.from("héllo 😀", "utf8"))).toBe(true);
  });

  it("encodes lone surrogates as their own 3-byte sequences (Python surrogatepass)", () => {
    expect(encodeUtf8SurrogatePass("a\ud800").toString("hex")).toBe("61eda080");
    expect(encodeUtf8SurrogatePass("\udfff😀").toString("hex")).toBe("edbfbff09f9880");
  });

  it("keeps distinct lone surrogates distinct (Buffer.from would map both to U+FFFD)", () => {
    expect(encodeUtf8SurrogatePass("\ud800").equals(encodeUtf8SurrogatePass("\ud801"))).toBe(false);
  });
});

describe("isWellFormed", () => {
  it.each([
    ["", true],
    ["abc", true],
    ["😀", true],
    ["\ud83d", false],
    ["\ude00", false],
    ["\ude00\ud83d", false],
    ["x\ud83d\ude00y", true],
  ])("%j -> %s", (text, expected) => {
    expect(isWellFormed(text)).toBe(expected);
  });
});
