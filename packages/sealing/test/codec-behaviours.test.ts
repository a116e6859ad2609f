import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import { errorOf, reasonOf } from "./support/reasons.js";

const KEY_A = Buffer.from("0123456789abcdef0123456789abcdef");
const KEY_B = Buffer.from("correct horse battery staple, forty bytes!");
const KEY_C = Buffer.alloc(32, 0xa3);
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const body = (token: string) => Buffer.from(token.slice(3), "base64url");
const withBody = (raw: Buffer) => `v1.${raw.toString("base64url")}`;

describe("built-in AES-256-GCM codec", () => {
  const codec = new AesGcmRequestStateCodec([KEY_A]);

  it.each([
    ["empty", Buffer.alloc(0)],
    ["ASCII", Buffer.from("awaiting-confirm:9f2e")],
    ["multi-byte UTF-8", Buffer.from("héllo 世界 😀")],
    ["all 256 byte values", Buffer.from(Array.from({ length: 256 }, (_, i) => i))],
    ["64 KiB", Buffer.alloc(64 * 1024, 0x5a)],
  ])("[1] round-trips %s", (_, payload) => {
    expect(Buffer.from(codec.unseal(codec.seal(payload))).equals(payload)).toBe(true);
  });

  it.each([0, 1, 2, 3, 100])(
    "[2] a token is v1. + unpadded base64url of kid||nonce||ct||tag (%i-byte payload)",
    (size) => {
      const token = codec.seal(Buffer.alloc(size, 1));
      expect(token.startsWith("v1.")).toBe(true);
      expect(token.slice(3)).toMatch(BASE64URL);
      expect(token).not.toContain("=");
      expect(body(token).length).toBe(4 + 12 + size + 16);
    },
  );

  it("[3] sealing one payload twice gives two different tokens that both open", () => {
    const payload = Buffer.from("same");
    const [first, second] = [codec.seal(payload), codec.seal(payload)];
    expect(first).not.toBe(second);
    expect(Buffer.from(codec.unseal(first))).toEqual(payload);
    expect(Buffer.from(codec.unseal(second))).toEqual(payload);
  });

  it("[4] flipping any byte of prefix, kid, nonce, ciphertext or tag is refused with a short reason", () => {
    const payload = Buffer.from("secret-plaintext-state");
    const token = codec.seal(payload);
    const prefixFlips = [0, 1, 2].map(
      (i) => token.slice(0, i) + String.fromCharCode(token.charCodeAt(i) ^ 1) + token.slice(i + 1),
    );
    const raw = body(token);
    const bodyFlips = raw
      .map((_, i) => i)
      .reduce<string[]>((all, i) => {
        const copy = Buffer.from(raw);
        copy[i] = (copy[i] ?? 0) ^ 0x01;
        all.push(withBody(copy));
        return all;
      }, []);
    for (const tampered of [...prefixFlips, ...bodyFlips]) {
      const reason = reasonOf(() => codec.unseal(tampered));
      expect(reason.length).toBeLessThanOrEqual(40);
      expect(reason).not.toContain("secret");
    }
  });

  it.each([
    ["empty string", ""],
    ["missing prefix", "oBT0CwAAAAAAAAAAAAAAAJ3W6eON0fNw9vCzz09FvVzC-9MI4mPlL7LIRvPLko9w"],
    ["non-base64 body", "v1.not base64 at all!"],
    ["body shorter than 32 bytes", `v1.${Buffer.alloc(31).toString("base64url")}`],
  ])("[5] %s is malformed", (_, token) => {
    expect(reasonOf(() => codec.unseal(token))).toBe("malformed");
  });

  it("[6] a token from key A under ring [B] is refused as exactly 'unknown key'", () => {
    const token = new AesGcmRequestStateCodec([KEY_A]).seal(Buffer.from("x"));
    expect(reasonOf(() => new AesGcmRequestStateCodec([KEY_B]).unseal(token))).toBe("unknown key");
  });

  it("[7] rotation: [old,new] and [new,old] open old tokens; [new,old] mints for [new] only; retired keys are refused", () => {
    const payload = Buffer.from("p");
    const oldToken = new AesGcmRequestStateCodec([KEY_A]).seal(payload);
    const phase1 = new AesGcmRequestStateCodec([KEY_A, KEY_B]);
    const phase2 = new AesGcmRequestStateCodec([KEY_B, KEY_A]);
    const phase3 = new AesGcmRequestStateCodec([KEY_B]);
    expect(Buffer.from(phase1.unseal(oldToken))).toEqual(payload);
    expect(Buffer.from(phase2.unseal(oldToken))).toEqual(payload);
    const newToken = phase2.seal(payload);
    expect(Buffer.from(phase3.unseal(newToken))).toEqual(payload);
    expect(reasonOf(() => new AesGcmRequestStateCodec([KEY_A]).unseal(newToken))).toBe("unknown key");
    expect(reasonOf(() => phase3.unseal(oldToken))).toBe("unknown key");
  });

  it("[8] an empty ring is refused with a message saying how to make a key", () => {
    const error = errorOf(() => new AesGcmRequestStateCodec([]));
    expect(error.message).toContain("AesGcmRequestStateCodec requires at least one key");
    expect(error.message).toContain("randomBytes(32)");
  });

  it("[8] a 31-byte key is refused with its size and how to generate one", () => {
    const error = errorOf(() => new AesGcmRequestStateCodec([Buffer.alloc(31, 1)]));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toContain(
      "request-state keys must be at least 32 bytes of secret randomness; keys[0] is 31 bytes",
    );
    expect(error.message).toContain(
      `node -e "console.log(require('node:crypto').randomBytes(32).toString('hex'))"`,
    );
    expect(error.message).toContain("openssl rand -hex 32");
  });

  it("[8] a duplicate key is refused by index", () => {
    const error = errorOf(() => new AesGcmRequestStateCodec([KEY_A, KEY_B, Buffer.from(KEY_A)]));
    expect(error.message).toContain("keys[2] duplicates an earlier ring key");
  });

  it.each([
    ["number", 32, "number"],
    ["ArrayBuffer", new ArrayBuffer(32), "ArrayBuffer"],
    ["null", null, "null"],
    ["array of numbers", Array.from({ length: 32 }, () => 1), "Array"],
  ])("[8] a non-bytes entry (%s) is refused, never coerced", (_, entry, type) => {
    const error = errorOf(() => new AesGcmRequestStateCodec([KEY_A, entry as never]));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(
      `request-state keys must be Uint8Array (Buffer) or string; keys[1] is ${type}`,
    );
  });

  it("[8] a string key with a lone surrogate is refused (it has no UTF-8 form)", () => {
    expect(errorOf(() => new AesGcmRequestStateCodec([`${"k".repeat(32)}\ud800`])).message).toContain(
      "lone surrogate",
    );
  });

  it("[9] a mixed ring works, a string key equals its UTF-8 bytes, and the caller's buffer is copied", () => {
    const text = "k".repeat(32);
    const mutable = new Uint8Array(KEY_C);
    const ring = new AesGcmRequestStateCodec([mutable, KEY_B, text]);
    mutable.fill(0);
    const token = new AesGcmRequestStateCodec([Buffer.from(text, "utf8")]).seal(Buffer.from("x"));
    expect(Buffer.from(ring.unseal(token)).toString()).toBe("x");
    expect(
      Buffer.from(new AesGcmRequestStateCodec([KEY_C]).unseal(ring.seal(Buffer.from("y")))).toString(),
    ).toBe("y");
    expect(errorOf(() => new AesGcmRequestStateCodec([text, Buffer.from(text)])).message).toContain(
      "keys[1] duplicates",
    );
  });

  it("[10] the plaintext appears nowhere in the token", () => {
    const plaintext = "awaiting-confirm:9f2e-plaintext-marker";
    const token = codec.seal(Buffer.from(plaintext));
    const raw = body(token);
    expect(token).not.toContain(plaintext);
    expect(token).not.toContain(Buffer.from(plaintext).toString("base64url").slice(0, 16));
    expect(raw.toString("hex")).not.toContain(Buffer.from(plaintext).toString("hex").slice(0, 16));
    expect(raw.includes(Buffer.from(plaintext.slice(0, 8)))).toBe(false);
  });

  it.each([0, 1, 2])(
    "[11] every one of the 63 substitutions of the final character is refused (payload %i mod 3)",
    (rest) => {
      const token = codec.seal(Buffer.alloc(30 + rest, 7));
      const last = token.at(-1);
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      const substitutes = [...alphabet].filter((c) => c !== last);
      expect(substitutes).toHaveLength(63);
      for (const c of substitutes) {
        expect(["malformed", "seal"]).toContain(reasonOf(() => codec.unseal(token.slice(0, -1) + c)));
      }
    },
  );

  it.each([
    ["injected junk", (t: string) => `${t.slice(0, 10)}*${t.slice(10)}`],
    ["an appended newline", (t: string) => `${t}\n`],
    ["appended padding", (t: string) => `${t}=`],
    ["standard base64 characters", (t: string) => t.replaceAll("-", "+").replaceAll("_", "/")],
    ["a leading space", (t: string) => ` ${t}`],
  ])("[11] %s is refused", (_, tamper) => {
    const token = tokenWithUrlSafeCharacters();
    expect(tamper(token)).not.toBe(token);
    expect(reasonOf(() => codec.unseal(tamper(token)))).toMatch(/^(malformed|seal)$/);
  });

  /** Nonces are random, so a token may lack `-` and `_`; draw until one has both to alter. */
  function tokenWithUrlSafeCharacters(): string {
    for (;;) {
      const token = codec.seal(Buffer.from("payload"));
      if (token.includes("-") && token.includes("_")) return token;
    }
  }

  it("[12] re-prefixing v1. as v2. is refused", () => {
    const token = codec.seal(Buffer.from("x"));
    expect(reasonOf(() => codec.unseal(`v2.${token.slice(3)}`))).toBe("malformed");
  });

  it("[12] a kid transplanted onto another token's body is refused (the kid is under the tag)", () => {
    const ring = new AesGcmRequestStateCodec([KEY_A, KEY_B]);
    const underA = body(new AesGcmRequestStateCodec([KEY_A]).seal(Buffer.from("x")));
    const underB = body(new AesGcmRequestStateCodec([KEY_B]).seal(Buffer.from("x")));
    const transplanted = Buffer.concat([underB.subarray(0, 4), underA.subarray(4)]);
    expect(reasonOf(() => ring.unseal(withBody(transplanted)))).toBe("seal");
  });

  it("refuses a non-string token as malformed instead of throwing a TypeError", () => {
    expect(reasonOf(() => codec.unseal(123 as never))).toBe("malformed");
  });

  describe("a token this codec minted lately", () => {
    it("opens to the sealed payload, and each open hands out its own copy", () => {
      const payload = Buffer.from("awaiting-confirm:9f2e");
      const token = codec.seal(payload);
      payload.fill(0);
      const first = Buffer.from(codec.unseal(token));
      expect(first.toString()).toBe("awaiting-confirm:9f2e");
      codec.unseal(token).fill(0);
      expect(Buffer.from(codec.unseal(token)).toString()).toBe("awaiting-confirm:9f2e");
    });

    it("is verified in full once its text differs anywhere after the nonce", () => {
      const token = codec.seal(Buffer.from("secret-plaintext-state"));
      const raw = body(token);
      const tail = raw.length - 1;
      raw[tail] = (raw[tail] ?? 0) ^ 0x01;
      expect(reasonOf(() => codec.unseal(withBody(raw)))).toBe("seal");
      const lastChar = token.length - 1;
      const flipped = token.slice(0, lastChar) + (token[lastChar] === "A" ? "B" : "A");
      expect(["seal", "malformed"]).toContain(reasonOf(() => codec.unseal(flipped)));
    });

    it("opens the same under another codec of the same ring, which decrypts it", () => {
      const token = codec.seal(Buffer.from("shared"));
      expect(Buffer.from(new AesGcmRequestStateCodec([KEY_A]).unseal(token)).toString()).toBe("shared");
    });
  });
});
