import { describe, expect, it } from "vitest";
import { pythonFloatRepr } from "./python-float.js";

describe("pythonFloatRepr", () => {
  it.each([
    [1782345600, "1782345600.0"],
    [1782346200.5, "1782346200.5"],
    [1782345600.123456, "1782345600.123456"],
    [0, "0.0"],
    [-0, "-0.0"],
    [600, "600.0"],
    [1e16, "1e+16"],
    [9999999999999998, "9999999999999998.0"],
    [1e22, "1e+22"],
    [0.0001, "0.0001"],
    [0.00009999, "9.999e-05"],
    [-1.5e-300, "-1.5e-300"],
    [Number.MAX_VALUE, "1.7976931348623157e+308"],
  ])("%s -> %s", (value, text) => {
    expect(pythonFloatRepr(value)).toBe(text);
  });
});
