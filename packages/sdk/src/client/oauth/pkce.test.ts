import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPkce, pkceChallenge, randomState } from "./pkce.js";

describe("PKCE", () => {
  it("derives the S256 challenge as base64url(SHA-256(verifier)) without padding", async () => {
    // Checked against node:crypto, an implementation independent of the WebCrypto one used here.
    for (const verifier of [
      "a".repeat(43),
      "dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk",
      "~._-".repeat(32),
    ]) {
      const challenge = await pkceChallenge(verifier);
      expect(challenge).toBe(createHash("sha256").update(verifier).digest("base64url"));
      expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("makes fresh 43-character unreserved verifiers with matching challenges", async () => {
    const first = await createPkce();
    const second = await createPkce();
    expect(first.verifier).toMatch(/^[A-Za-z0-9\-._~]{43}$/);
    expect(first.verifier).not.toBe(second.verifier);
    expect(first.method).toBe("S256");
    expect(first.challenge).toBe(await pkceChallenge(first.verifier));
  });

  it("makes unguessable, distinct state values", () => {
    const states = new Set(Array.from({ length: 50 }, randomState));
    expect(states.size).toBe(50);
    for (const state of states) expect(state.length).toBeGreaterThanOrEqual(32);
  });
});
