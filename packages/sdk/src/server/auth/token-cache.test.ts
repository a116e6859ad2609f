import { describe, expect, it } from "vitest";
import { TokenCache } from "./token-cache.js";

describe("TokenCache", () => {
  it("returns an entry until its deadline and forgets it after", () => {
    const cache = new TokenCache<string>(10);
    cache.set("t", "v", 1_000);
    expect(cache.get("t", 999)).toBe("v");
    expect(cache.get("t", 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops the oldest entry once full", () => {
    const cache = new TokenCache<number>(2);
    cache.set("a", 1, Number.POSITIVE_INFINITY);
    cache.set("b", 2, Number.POSITIVE_INFINITY);
    cache.set("c", 3, Number.POSITIVE_INFINITY);
    expect([cache.get("a", 0), cache.get("b", 0), cache.get("c", 0)]).toEqual([undefined, 2, 3]);
  });

  it("keeps nothing when its bound is 0", () => {
    const cache = new TokenCache<number>(0);
    cache.set("a", 1, Number.POSITIVE_INFINITY);
    expect(cache.get("a", 0)).toBeUndefined();
  });
});
