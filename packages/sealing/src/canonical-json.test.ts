import { describe, expect, it } from "vitest";
import {
  compareCodePoints,
  pythonJsonDumps,
  pythonJsonNumber,
  pythonJsonString,
  sortedKeysJson,
} from "./canonical-json.js";

const sorted = (value: unknown) => pythonJsonDumps(value, { sortKeys: true });

describe("pythonJsonString (ensure_ascii)", () => {
  it.each([
    ["plain", "deploy", '"deploy"'],
    ["quotes and backslash", 'say "hi" \\ /', '"say \\"hi\\" \\\\ /"'],
    ["short escapes", "\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'],
    ["other control characters", "\u0000\u0001\u001f", '"\\u0000\\u0001\\u001f"'],
    ["DEL", "\u007f", '"\\u007f"'],
    ["Latin-1 and CJK, lowercase hex", "café 世界", '"caf\\u00e9 \\u4e16\\u754c"'],
    ["astral as a surrogate pair", "😀", '"\\ud83d\\ude00"'],
    ["lone surrogates", "\ud800x\udfff", '"\\ud800x\\udfff"'],
  ])("%s", (_, text, json) => {
    expect(pythonJsonString(text)).toBe(json);
  });
});

describe("pythonJsonNumber", () => {
  it.each([
    [0, "0"],
    [-0, "0"],
    [42, "42"],
    [-42, "-42"],
    [9007199254740991, "9007199254740991"],
    [1e20, "100000000000000000000"],
    [1e21, "1e+21"],
    [1.5e300, "1.5e+300"],
    [1.5, "1.5"],
    [-0.25, "-0.25"],
    [Math.PI, "3.141592653589793"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e-7, "1e-07"],
    [1.2345e-10, "1.2345e-10"],
    [5e-324, "5e-324"],
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
  ])("%s prints as %s", (value, text) => {
    expect(pythonJsonNumber(value)).toBe(text);
  });
});

describe("pythonJsonDumps", () => {
  it("sorts keys by code point, not UTF-16 unit", () => {
    expect(sorted({ "\uffff": 4, "😀": 3, é: 1, e: 2 })).toBe(
      '{"e":2,"\\u00e9":1,"\\uffff":4,"\\ud83d\\ude00":3}',
    );
  });

  it("sorts integer-like keys as strings, as Python does", () => {
    expect(sorted({ 10: "a", 9: "b", a: "c" })).toBe('{"10":"a","9":"b","a":"c"}');
  });

  it("keeps insertion order without sortKeys", () => {
    expect(pythonJsonDumps({ b: 1, a: [true, null] }, { sortKeys: false })).toBe('{"b":1,"a":[true,null]}');
  });

  it("sorts nested objects and leaves array order alone", () => {
    expect(sorted({ z: [3, 1, { y: null, x: false }], a: {} })).toBe(
      '{"a":{},"z":[3,1,{"x":false,"y":null}]}',
    );
  });

  it("follows what JSON.stringify would send: toJSON, dropped undefined members, null array holes", () => {
    const when = new Date(Date.UTC(2026, 6, 28));
    expect(sorted({ when, gone: undefined, fn: () => 1, list: [undefined, 1] })).toBe(
      '{"list":[null,1],"when":"2026-07-28T00:00:00.000Z"}',
    );
  });

  it("prints bigint exactly", () => {
    expect(sorted({ big: 12345678901234567890n })).toBe('{"big":12345678901234567890}');
  });

  it("refuses cycles, symbols and undefined at the top", () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(() => sorted(cycle)).toThrow(/circular/);
    expect(() => sorted(Symbol("x"))).toThrow(TypeError);
    expect(() => sorted(undefined)).toThrow(TypeError);
  });

  it("allows the same object twice when it is not a cycle", () => {
    const shared = { a: 1 };
    expect(sorted({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
  });
});

describe("compareCodePoints", () => {
  it.each([
    ["a", "b", -1],
    ["b", "a", 1],
    ["a", "ab", -1],
    ["\uffff", "😀", -1],
    ["\ud83d", "😀", -1],
    ["\ud83dA", "😀", -1],
    ["\ud83d\ue000", "😀", -1],
    ["\ue000", "\ud800", 1],
    ["same", "same", 0],
  ])("%j vs %j", (a, b, sign) => {
    expect(Math.sign(compareCodePoints(a, b))).toBe(sign);
  });
});

describe("sortedKeysJson", () => {
  it("sorts keys by UTF-16 unit, at every depth, whatever order they came in", () => {
    expect(sortedKeysJson({ b: [{ z: 1, y: 2 }], a: { d: null, c: true } })).toBe(
      '{"a":{"c":true,"d":null},"b":[{"y":2,"z":1}]}',
    );
    // A plain sort puts an astral character (a surrogate pair) before U+E000..U+FFFF.
    expect(sortedKeysJson({ "\uffff": 4, "😀": 3, é: 1, e: 2 })).toBe('{"e":2,"é":1,"😀":3,"\uffff":4}');
  });

  it("prints strings and numbers as JSON.stringify does, unlike the Python form", () => {
    const value = { text: "café 世界 😀 \u007f \u2028", small: 1e-7, tiny: 0.00001, big: 1e21 };
    expect(sortedKeysJson(value)).toBe(
      `{"big":1e+21,"small":1e-7,"text":${JSON.stringify(value.text)},"tiny":0.00001}`,
    );
    expect(sorted(value)).not.toBe(sortedKeysJson(value));
  });

  it("drops undefined members, writes undefined items as null, and refuses what is not JSON", () => {
    expect(sortedKeysJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    expect(sortedKeysJson([Number.NaN, Number.POSITIVE_INFINITY])).toBe("[null,null]");
    expect(() => sortedKeysJson(undefined)).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => sortedKeysJson(cycle)).toThrow(/circular/);
  });
});
