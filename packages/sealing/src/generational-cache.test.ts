import { describe, expect, it } from "vitest";
import { GenerationalCache } from "./generational-cache.js";

describe("GenerationalCache", () => {
  it("keeps the last generation of entries and forgets the one before it", () => {
    const cache = new GenerationalCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([1, 2, 3]);
    cache.set("d", 4);
    cache.set("e", 5);
    expect([cache.get("a"), cache.get("b")]).toEqual([undefined, undefined]);
    expect([cache.get("c"), cache.get("d"), cache.get("e")]).toEqual([3, 4, 5]);
  });

  it("finds a rewritten key at its newest value", () => {
    const cache = new GenerationalCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 10);
    expect(cache.get("a")).toBe(10);
  });
});
