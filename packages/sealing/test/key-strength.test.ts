import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { weakSecretReason } from "../src/key-strength.js";

describe("weakSecretReason", () => {
  it("accepts what openssl rand prints, as hex or base64", () => {
    expect(weakSecretReason(randomBytes(32).toString("hex"))).toBeUndefined();
    expect(weakSecretReason(randomBytes(48).toString("base64"))).toBeUndefined();
    expect(weakSecretReason(randomBytes(32).toString("base64url"))).toBeUndefined();
  });

  it("refuses placeholders, short secrets and text that encodes nothing", () => {
    expect(weakSecretReason("a".repeat(32))).toMatch(/decodes to 16 bytes/);
    expect(weakSecretReason("a".repeat(64))).toMatch(/only 1 distinct byte values/);
    expect(weakSecretReason("a3".repeat(32))).toMatch(/only 1 distinct byte values/);
    expect(weakSecretReason("0123456789abcdef".repeat(4))).toMatch(/only 8 distinct byte values/);
    expect(weakSecretReason(randomBytes(16).toString("hex"))).toMatch(/decodes to 16 bytes; at least 32/);
    expect(weakSecretReason("correct horse battery staple, forty bytes!")).toBe("is neither hex nor base64");
  });

  it("accepts every 32-byte random secret, in hex", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 64 }).filter((b) => new Set(b).size >= 12),
        (bytes) => weakSecretReason(Buffer.from(bytes).toString("hex")) === undefined,
      ),
    );
  });
});
