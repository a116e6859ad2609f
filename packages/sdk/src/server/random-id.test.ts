import { describe, expect, it } from "vitest";
import { randomId } from "./random-id.js";

describe("randomId", () => {
  it("spells the asked number of bytes in hex or base64url", () => {
    expect(randomId(8, "hex")).toMatch(/^[0-9a-f]{16}$/);
    expect(randomId(16, "base64url")).toMatch(/^[\w-]{22}$/);
    expect(randomId(24, "base64url")).toMatch(/^[\w-]{32}$/);
  });

  it("draws from a page of its own, not from the pool other small buffers share", () => {
    // Node hands small allocUnsafe buffers out of one shared slab: a page carved from it would be
    // readable through any of them. A whole page's worth refills the page and hands all of it out.
    const pooled = Buffer.allocUnsafe(16);
    const page = randomId(4096, "hex");
    expect(page).toHaveLength(8192);
    expect(Buffer.from(pooled.buffer).toString("hex")).not.toContain(page);
  });

  it("never repeats across pages, nor for an id larger than a page", () => {
    const seen = new Set<string>();
    // Several pages' worth, so ids straddle refills.
    for (let i = 0; i < 3000; i++) seen.add(randomId(9, "base64url"));
    expect(seen.size).toBe(3000);
    expect(randomId(5000, "hex")).toHaveLength(10_000);
    expect(randomId(5000, "hex")).not.toBe(randomId(5000, "hex"));
  });
});
