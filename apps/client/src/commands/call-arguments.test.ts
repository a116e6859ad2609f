import { describe, expect, it } from "vitest";
import { parseArguments } from "./call-arguments.js";

describe("command-line arguments", () => {
  it("takes one JSON object, key=value strings and key:=json values", () => {
    expect(parseArguments([])).toBeUndefined();
    expect(parseArguments(['{"a": 1}'])).toEqual({ a: 1 });
    expect(parseArguments(["a=1", "b:=1", "c:=[1]", "d=x=y"])).toEqual({ a: "1", b: 1, c: [1], d: "x=y" });
  });

  it("converts key=value by the tool's input schema", () => {
    const schema = { properties: { n: { type: "integer" }, f: { type: "boolean" }, s: { type: "string" } } };
    expect(parseArguments(["n=3", "f=true", "s=3"], schema)).toEqual({ n: 3, f: true, s: "3" });
    expect(parseArguments(["n=three"], schema)).toEqual({ n: "three" });
  });

  it("refuses what is not an argument", () => {
    expect(() => parseArguments(["oops"])).toThrow(/key=value/);
    expect(() => parseArguments(["[1]"])).toThrow(/key=value/);
    expect(() => parseArguments(["{nope"])).toThrow(/not valid JSON/);
    expect(() => parseArguments(["n:=nope"])).toThrow(/JSON value/);
  });
});
