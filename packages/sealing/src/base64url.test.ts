import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64UrlCanonical } from "./base64url.js";

describe("decodeBase64UrlCanonical", () => {
  it("decodes what Node encodes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = Buffer.from(bytes).toString("base64url");
        expect(decodeBase64UrlCanonical(text)?.equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it("accepts a string exactly when it is the canonical spelling of some bytes", () => {
    const alphabet = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ \n."];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
        const text = chars.join("");
        const canonical =
          /^[A-Za-z0-9_-]*$/.test(text) && Buffer.from(text, "base64url").toString("base64url") === text;
        expect(decodeBase64UrlCanonical(text) !== undefined).toBe(canonical);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["padding", "QQ=="],
    ["spare bits set", "QR"],
    ["4n+1 length", "QUFBQ"],
    ["standard alphabet", "+/+/"],
    ["whitespace", "QUFB\n"],
  ])("refuses %s", (_, text) => {
    expect(decodeBase64UrlCanonical(text)).toBeUndefined();
  });
});
