import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import { argumentsDigest } from "../src/args-digest.js";
import type { RequestStateCodec } from "../src/request-state-codec.js";
import { TRAIL_MAX_LENGTH } from "../src/request-state-context.js";
import { RequestStateSealError } from "../src/request-state-seal-error.js";
import { RequestStateSecurity } from "../src/request-state-security.js";

const KEY = "0123456789abcdef0123456789abcdef";
const T = 1_782_345_600;
const deploy = { method: "tools/call", target: "deploy", arguments: { env: "prod" } };
const at = { audience: "srv", now: T };

const policy = () => new RequestStateSecurity({ codec: new AesGcmRequestStateCodec([Buffer.from(KEY)]) });
const claimsOf = (security: RequestStateSecurity, token: string) =>
  JSON.parse(Buffer.from(security.codec.unseal(token)).toString("utf8")) as Record<string, unknown>;

/** Authenticates nothing: feeds the policy the claims an older or foreign minter would have sealed. */
const passthrough: RequestStateCodec = {
  seal: (payload) => `raw.${Buffer.from(payload).toString("base64url")}`,
  unseal: (token) => Buffer.from(token.slice(4), "base64url"),
};
const minted = (extra: Record<string, unknown>) =>
  passthrough.seal(
    Buffer.from(
      JSON.stringify({
        v: 1,
        iat: T,
        exp: T + 600,
        m: "tools/call",
        t: "deploy",
        a: argumentsDigest({ env: "prod" }),
        s: "state",
        aud: "srv",
        ...extra,
      }),
    ),
  );

describe("the trail a sealed requestState carries", () => {
  it("comes back on open, sealed as the last claim, never in the clear", () => {
    const security = policy();
    const token = security.seal("state", deploy, { ...at, trail: "1.0123456789abcdef.1" });
    expect(token).not.toContain("0123456789abcdef");
    expect(Object.keys(claimsOf(security, token)).at(-1)).toBe("o");
    expect(security.openWithTrail(token, deploy, at)).toEqual({
      state: "state",
      trail: "1.0123456789abcdef.1",
    });
    expect(security.open(token, deploy, at)).toBe("state");
  });

  it("is absent from a token sealed without one, which opens as before", () => {
    const security = policy();
    const token = security.seal("state", deploy, at);
    expect(claimsOf(security, token)).not.toHaveProperty("o");
    expect(security.openWithTrail(token, deploy, at)).toEqual({ state: "state", trail: undefined });
  });

  it("never fails an open: a trail that is not a string reads as none", () => {
    const security = new RequestStateSecurity({ codec: passthrough });
    expect(security.openWithTrail(minted({ o: 42 }), deploy, at)).toEqual({
      state: "state",
      trail: undefined,
    });
    expect(security.openWithTrail(minted({}), deploy, at)).toEqual({ state: "state", trail: undefined });
  });

  it("refuses to seal a trail that is too long or not a string, naming the limit", () => {
    const security = policy();
    const long = "x".repeat(TRAIL_MAX_LENGTH + 1);
    expect(() => security.seal("state", deploy, { ...at, trail: long })).toThrow(RequestStateSealError);
    expect(() => security.seal("state", deploy, { ...at, trail: long })).toThrow(
      `at most ${TRAIL_MAX_LENGTH}`,
    );
    const notString = { ...at, trail: 7 as unknown as string };
    expect(() => security.seal("state", deploy, notString)).toThrow("trail is number, expected string");
  });
});
