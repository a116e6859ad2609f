import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import {
  InvalidRequestState,
  openValue,
  type RequestStateCodec,
  RequestStateSealError,
  RequestStateSecurity,
  sealValue,
} from "../src/index.js";
import { KmsRequestStateCodec } from "../src/kms/kms-codec.js";
import { errorOf, reasonOf } from "./support/reasons.js";

const KEY_A = Buffer.from("0123456789abcdef0123456789abcdef");
const KEY_B = Buffer.from("correct horse battery staple, forty bytes!");
const ANSWER = Buffer.from('{"r":{"content":[{"type":"text","text":"deployed prod"}]}}');
const KEY = "roundtrip:once:{flow.round}:outcome";

/** A codec of the application's own: reversible, but it still decides what it minted. */
const reversing: RequestStateCodec = {
  seal: (payload) => `rev.${Buffer.from(payload).reverse().toString("base64url")}`,
  unseal: (token) => {
    if (!token.startsWith("rev.")) throw new InvalidRequestState("not mine");
    return Buffer.from(token.slice(4), "base64url").reverse();
  },
};

describe("values sealed at rest", () => {
  it.each([
    ["the built-in ring", new AesGcmRequestStateCodec([KEY_A])],
    ["KMS data keys", new KmsRequestStateCodec([Buffer.alloc(32, 7)])],
    ["a custom codec", reversing],
  ])("round-trip under %s, bytes for bytes, for the context they were sealed for", (_, codec) => {
    for (const value of [Buffer.alloc(0), ANSWER, Buffer.from(Array.from({ length: 256 }, (_, i) => i))]) {
      const sealed = sealValue(codec, value, KEY);
      expect(Buffer.from(openValue(codec, sealed, KEY)).equals(value)).toBe(true);
    }
  });

  it("keep nothing of the value readable, and differ each time they are sealed", () => {
    const codec = new AesGcmRequestStateCodec([KEY_A]);
    const [first, second] = [sealValue(codec, ANSWER, KEY), sealValue(codec, ANSWER, KEY)];
    expect(first).not.toBe(second);
    for (const sealed of [first, second]) {
      expect(sealed.startsWith("v1.")).toBe(true);
      const bytes = Buffer.from(sealed.slice(3), "base64url");
      expect(bytes.includes("deployed")).toBe(false);
      expect(sealed).not.toContain("deployed");
      expect(sealed).not.toContain(Buffer.from("deployed prod").toString("base64url").slice(0, 12));
    }
  });

  it("open only for their own context: a value moved to another key is refused as a forgery", () => {
    const codec = new AesGcmRequestStateCodec([KEY_A]);
    const sealed = sealValue(codec, ANSWER, KEY);
    expect(reasonOf(() => openValue(codec, sealed, "roundtrip:once:{flow.other}:outcome"))).toBe("seal");
    expect(reasonOf(() => openValue(codec, sealed, `${KEY}x`))).toBe("seal");
    expect(reasonOf(() => openValue(codec, sealed, KEY.slice(0, -1)))).toBe("seal");
    // The context is length-prefixed: moving bytes between context and value changes nothing.
    const shifted = sealValue(codec, Buffer.concat([Buffer.from("t"), ANSWER]), KEY.slice(0, -1));
    expect(reasonOf(() => openValue(codec, shifted, KEY))).toBe("seal");
  });

  it("open through key rotation, and not under a ring that never held the key", () => {
    const sealed = sealValue(new AesGcmRequestStateCodec([KEY_A]), ANSWER, KEY);
    expect(Buffer.from(openValue(new AesGcmRequestStateCodec([KEY_B, KEY_A]), sealed, KEY))).toEqual(ANSWER);
    expect(reasonOf(() => openValue(new AesGcmRequestStateCodec([KEY_B]), sealed, KEY))).toBe("unknown key");
  });

  it("never open as requestState, and requestState never opens as a value", () => {
    const security = new RequestStateSecurity({ keys: [KEY_A] });
    const request = { method: "tools/call", target: "deploy", arguments: {} };
    const token = security.seal("asked", request, { audience: "svc" });
    expect(reasonOf(() => openValue(security.codec, token, KEY))).toBe("malformed");
    const sealed = sealValue(security.codec, Buffer.from('{"v":1}'), KEY);
    expect(reasonOf(() => security.open(sealed, request, { audience: "svc" }))).toBe("malformed");
  });

  it("refuse tampering, truncation and what is not a token", () => {
    const codec = new AesGcmRequestStateCodec([KEY_A]);
    const sealed = sealValue(codec, ANSWER, KEY);
    const raw = Buffer.from(sealed.slice(3), "base64url");
    raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
    expect(reasonOf(() => openValue(codec, `v1.${raw.toString("base64url")}`, KEY))).toBe("seal");
    const truncated = `v1.${Buffer.from(sealed.slice(3), "base64url").subarray(0, -3).toString("base64url")}`;
    expect(reasonOf(() => openValue(codec, truncated, KEY))).toBe("seal");
    expect(reasonOf(() => openValue(codec, 42 as unknown as string, KEY))).toBe("malformed");
    expect(reasonOf(() => openValue(codec, "", KEY))).toBe("malformed");
    // A codec's payload too short to carry a context is not a sealed value.
    expect(reasonOf(() => openValue(codec, codec.seal(Buffer.from([0, 0x52])), KEY))).toBe("malformed");
    const overlong = Buffer.from([0x00, 0x52, 0x56, 0x01, 0, 0, 1, 0, 0x41]);
    expect(reasonOf(() => openValue(codec, codec.seal(overlong), KEY))).toBe("malformed");
  });

  it("say what is wrong with a context or a value that is not one, and report a failing codec", () => {
    const codec = new AesGcmRequestStateCodec([KEY_A]);
    expect(() => sealValue(codec, ANSWER, "")).toThrow(/context must be a non-empty string.*an empty string/);
    expect(() => openValue(codec, "v1.x", 7 as unknown as string)).toThrow(TypeError);
    expect(() => sealValue(codec, "text" as unknown as Uint8Array, KEY)).toThrow(
      /value must be a Uint8Array, got string/,
    );
    const broken: RequestStateCodec = {
      seal: () => {
        throw new Error("KMS is away");
      },
      unseal: () => {
        throw new Error("KMS is away");
      },
    };
    const sealError = errorOf(() => sealValue(broken, ANSWER, KEY));
    expect(sealError).toBeInstanceOf(RequestStateSealError);
    expect((sealError as RequestStateSealError).reason).toBe("codec seal failed");
    expect(reasonOf(() => openValue(broken, "v1.x", KEY))).toBe("codec error");
  });
});
