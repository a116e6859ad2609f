import { describe, expect, it } from "vitest";
import { InvalidRequestState } from "../invalid-request-state.js";
import { KmsRequestStateCodec } from "./kms-codec.js";

const KEY_1 = Buffer.alloc(32, 1);
const KEY_2 = Buffer.alloc(32, 2);

function reason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequestState) return error.reason;
    throw error;
  }
  return "accepted";
}

describe("KmsRequestStateCodec", () => {
  it("seals kms1. tokens of kid||nonce||ct||tag and opens them", () => {
    const codec = new KmsRequestStateCodec([KEY_1]);
    const token = codec.seal(Buffer.from("state"));
    expect(token).toMatch(/^kms1\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token.slice(5), "base64url").length).toBe(4 + 12 + 5 + 16);
    expect(Buffer.from(codec.unseal(token)).toString()).toBe("state");
  });

  it("the first data key mints and every key opens", () => {
    const old = new KmsRequestStateCodec([KEY_1]).seal(Buffer.from("x"));
    const rotated = new KmsRequestStateCodec([KEY_2, KEY_1]);
    expect(Buffer.from(rotated.unseal(old)).toString()).toBe("x");
    expect(reason(() => new KmsRequestStateCodec([KEY_1]).unseal(rotated.seal(Buffer.from("y"))))).toBe(
      "unknown key",
    );
  });

  it("refuses other prefixes, re-prefixed tokens and non-canonical bodies", () => {
    const codec = new KmsRequestStateCodec([KEY_1]);
    const token = codec.seal(Buffer.from("x"));
    expect(reason(() => codec.unseal(`v1.${token.slice(5)}`))).toBe("malformed");
    expect(reason(() => codec.unseal(`kms2.${token.slice(5)}`))).toBe("malformed");
    expect(reason(() => codec.unseal(`${token}=`))).toBe("malformed");
  });

  it("copies nothing it does not need: wiping the caller's buffer afterwards changes nothing", () => {
    const key = Buffer.from(KEY_1);
    const codec = new KmsRequestStateCodec([key]);
    key.fill(0);
    expect(Buffer.from(codec.unseal(codec.seal(Buffer.from("x")))).toString()).toBe("x");
  });

  it.each([
    ["no keys", []],
    ["a 16-byte key", [Buffer.alloc(16, 1)]],
    ["a string", ["k".repeat(32)]],
  ])("refuses %s", (_, keys) => {
    expect(() => new KmsRequestStateCodec(keys as never)).toThrow(TypeError);
  });

  it("refuses the same data key twice", () => {
    expect(() => new KmsRequestStateCodec([KEY_1, Buffer.from(KEY_1)])).toThrow("dataKeys[1] duplicates");
  });
});
