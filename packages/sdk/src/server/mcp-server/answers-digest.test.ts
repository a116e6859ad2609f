import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isRecord } from "../../protocol/is-record.js";
import { answersDigest } from "./answers-digest.js";

/**
 * The text earlier releases digested, as they wrote it: the digest is stored with a round's outcome
 * and compared by the instance that serves a repeat, which may run either release during an upgrade.
 */
function previousCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(previousCanonical).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${previousCanonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

function previousDigest(value: unknown): string {
  return createHash("sha256").update(previousCanonical(value)).digest("base64url");
}

/** A small seeded generator, so every run checks the same values and a failure can be replayed. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARACTERS = [
  "a",
  "Z",
  "0",
  " ",
  '"',
  "\\",
  "\n",
  "\u0000",
  "\u007f",
  "é",
  "世",
  "\u2028",
  "\uffff",
  "😀",
  "\ud800",
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1.5,
  0.1,
  1e-7,
  0.00001,
  123e-20,
  2 ** 53 + 2,
  1e21,
  1.7976931348623157e308,
  5e-324,
];

function randomText(random: () => number): string {
  let text = "";
  const length = Math.floor(random() * 6);
  for (let i = 0; i < length; i++) text += CHARACTERS[Math.floor(random() * CHARACTERS.length)];
  return text;
}

function randomJson(random: () => number, depth: number): unknown {
  const kind = Math.floor(random() * (depth > 3 ? 5 : 7));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return NUMBERS[Math.floor(random() * NUMBERS.length)] as number;
    case 3:
      return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    case 4:
      return randomText(random);
    case 5:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
          randomText(random),
          randomJson(random, depth + 1),
        ]),
      );
  }
}

describe("answersDigest", () => {
  it("is the digest earlier releases stored, pinned", () => {
    expect(answersDigest(undefined)).toBe("dCNOmK_nSY-12vHzasLXiswzlGT5UHA7jAGYkvmCuQs");
    expect(answersDigest({ confirm: { action: "accept", content: { name: "Zoë 😀", ratio: 1e-7 } } })).toBe(
      "Tcokdo4vkQOBRdEj8sBIYlJ_xcLLNDf3xnjx5KH2eFw",
    );
    expect(answersDigest({ "\uffff": [1, [2.5, [0.00001]]], "😀": null, a: "\u2028" })).toBe(
      "dldsSjclipTaWkjwN-eaE9Wz82ftqQ8I12WByD3yk68",
    );
  });

  it.each([
    ["absent", undefined],
    ["null", null],
    ["non-ASCII text and keys", { clé: "café 世界", "😀": "\ud83d\ude00", "\uffff": "\u2028\u2029\u007f" }],
    ["floats", { a: 1e-7, b: 0.00001, c: 0.1, d: 1e21, e: -0, f: 5e-324, g: 1.7976931348623157e308 }],
    ["nested arrays", [[[]], [1, [2, [3, [{}]]]], [null, true, false]]],
    ["undefined members and items", { a: undefined, b: [undefined, { c: undefined }], d: 1 }],
    ["keys in any order, numeric-looking keys", { b: 1, a: 2, 10: 3, 9: 4, "": 5 }],
    ["a lone surrogate", { "\udc00": "\ud800" }],
    ["scalars", "answer"],
  ])("digests %s exactly as earlier releases did", (_, value) => {
    expect(answersDigest(value)).toBe(previousDigest(value));
  });

  it("digests every value JSON.parse gives exactly as earlier releases did (seeded, 2000 values)", () => {
    const random = randomSource(20261207);
    for (let i = 0; i < 2000; i++) {
      const value = JSON.parse(JSON.stringify(randomJson(random, 0)) ?? "null");
      expect(answersDigest(value), JSON.stringify(value)).toBe(previousDigest(value));
    }
  });

  it("tells different answers apart, whatever the key order", () => {
    expect(answersDigest({ a: 1, b: 2 })).toBe(answersDigest({ b: 2, a: 1 }));
    expect(answersDigest({ a: "é" })).not.toBe(answersDigest({ a: "e" }));
    expect(answersDigest({ a: [1, 2] })).not.toBe(answersDigest({ a: [2, 1] }));
  });
});
