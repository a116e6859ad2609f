import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import { InvalidRequestState } from "../src/invalid-request-state.js";
import { KmsRequestStateCodec } from "../src/kms/kms-codec.js";
import type { RequestStateCodec } from "../src/request-state-codec.js";
import { RequestStateSecurity } from "../src/request-state-security.js";

// Property: no single-byte change anywhere in a token is ever accepted, whatever the payload, key
// or position; and every refusal is an InvalidRequestState (never a crash or a different error).

const secret = fc.uint8Array({ minLength: 32, maxLength: 64 });
const payload = fc.uint8Array({ minLength: 0, maxLength: 120 });
const mask = fc.integer({ min: 1, max: 255 });

function refused(open: () => unknown): boolean {
  try {
    open();
    return false;
  } catch (error) {
    if (error instanceof InvalidRequestState) return true;
    throw error;
  }
}

/** The tampered tokens that were accepted: must always be none. */
function accepted(tokens: readonly string[], open: (token: string) => unknown): string[] {
  return tokens.filter((token) => !refused(() => open(token)));
}

/** Every token with exactly one character changed (xor with a non-zero mask, so it always differs). */
function characterFlips(token: string, xor: number): string[] {
  return [...token].map(
    (_, i) => token.slice(0, i) + String.fromCharCode(token.charCodeAt(i) ^ xor) + token.slice(i + 1),
  );
}

/** Every token whose decoded body has exactly one byte changed, re-encoded canonically. */
function byteFlips(token: string, prefix: string, xor: number): string[] {
  const raw = Buffer.from(token.slice(prefix.length), "base64url");
  return [...raw.keys()].map((i) => {
    const copy = Buffer.from(raw);
    copy[i] = (copy[i] ?? 0) ^ xor;
    return prefix + copy.toString("base64url");
  });
}

function codecProperty(make: (key: Uint8Array) => RequestStateCodec, prefix: string) {
  return fc.property(secret, payload, mask, (key, bytes, xor) => {
    const codec = make(key);
    const token = codec.seal(bytes);
    expect(Buffer.from(codec.unseal(token)).equals(Buffer.from(bytes))).toBe(true);
    const tampered = [...characterFlips(token, xor), ...byteFlips(token, prefix, xor)];
    expect(accepted(tampered, (t) => codec.unseal(t))).toEqual([]);
  });
}

describe("tampering (property)", () => {
  it("[4] no flipped character or byte of a v1 token is ever accepted", () => {
    fc.assert(
      codecProperty((key) => new AesGcmRequestStateCodec([key]), "v1."),
      { numRuns: 100 },
    );
  });

  it("no flipped character or byte of a kms1 token is ever accepted", () => {
    const dataKey = fc.uint8Array({ minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(dataKey, payload, mask, (key, bytes, xor) => {
        const codec = new KmsRequestStateCodec([key]);
        const token = codec.seal(bytes);
        const tampered = [...characterFlips(token, xor), ...byteFlips(token, "kms1.", xor)];
        expect(accepted(tampered, (t) => codec.unseal(t))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it("[21] no flipped character of a full envelope is accepted by the policy", () => {
    const state = fc.string({ maxLength: 60, unit: "binary" });
    const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    fc.assert(
      fc.property(secret, state, args, mask, (key, plaintext, argumentsValue, xor) => {
        const policy = new RequestStateSecurity({ keys: [key], bindPrincipal: () => "principal" });
        const request = { method: "tools/call", target: "deploy", arguments: argumentsValue };
        const context = { audience: "srv", now: 1_782_345_600 };
        const token = policy.seal(plaintext, request, context);
        expect(policy.open(token, request, context)).toBe(plaintext);
        expect(accepted(characterFlips(token, xor), (t) => policy.open(t, request, context))).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it("no random string is accepted as a token", () => {
    const codec = new AesGcmRequestStateCodec(["k".repeat(32)]);
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        expect(refused(() => codec.unseal(`v1.${text}`))).toBe(true);
        expect(refused(() => codec.unseal(text))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
