import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec, pinNonceSource, V1_PROFILE } from "../src/aes-gcm-codec.js";
import { argumentsDigest } from "../src/args-digest.js";
import { pythonJsonDumps } from "../src/canonical-json.js";
import { InvalidRequestState } from "../src/invalid-request-state.js";
import { INVALID_REQUEST_STATE_ERROR } from "../src/invalid-request-state-error.js";
import { deriveKey } from "../src/key-ring.js";
import { authenticatedPrincipal, principalClaim, principalClaimMatches } from "../src/principal.js";
import { pinSaltSource, RequestStateSecurity } from "../src/request-state-security.js";
import { loadVectors, pinnedBytes, secretBytes, vectorRequest } from "./support/vectors.js";

const vectors = loadVectors();

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequestState) return error.reason;
    throw error;
  }
  throw new Error("expected InvalidRequestState, nothing was thrown");
}

describe("vectors: kdf", () => {
  it.each(vectors.kdf.map((v, i) => [i, v] as const))(
    "kdf[%i] derives the AES key and key id",
    (_, vector) => {
      const { aesKey, kid } = deriveKey(secretBytes(vector), V1_PROFILE);
      expect(aesKey.toString("hex")).toBe(vector.aes_key_hex);
      expect(kid.toString("hex")).toBe(vector.kid_hex);
    },
  );
});

describe("vectors: seal", () => {
  it.each(vectors.seal.map((v, i) => [i, v] as const))(
    "seal[%i] mints the exact token and opens it",
    (_, vector) => {
      const codec = new AesGcmRequestStateCodec([secretBytes(vector)]);
      pinNonceSource(codec, pinnedBytes(vector.nonce_hex));
      const payload = Buffer.from(vector.payload_hex, "hex");
      expect(codec.seal(payload)).toBe(vector.token);
      expect(Buffer.from(codec.unseal(vector.token)).toString("hex")).toBe(vector.payload_hex);
    },
  );
});

describe("vectors: unseal_reject", () => {
  const { ring, valid_token, valid_payload_hex, cases } = vectors.unseal_reject;
  const codec = new AesGcmRequestStateCodec(ring.map(secretBytes));

  it("the valid token opens", () => {
    expect(Buffer.from(codec.unseal(valid_token)).toString("hex")).toBe(valid_payload_hex);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s is refused with the reference reason", (_, vector) => {
    expect(reasonOf(() => codec.unseal(vector.token))).toBe(vector.reason);
  });
});

describe("vectors: rotation", () => {
  const { rotation } = vectors;
  const oldKey = secretBytes(rotation.old);
  const newKey = secretBytes(rotation.new);
  const oldToken = rotation["token_minted_under_[old]"];
  const newToken = rotation["token_minted_under_[new,old]"];
  const opens = (keys: Buffer[], token: string) => {
    try {
      new AesGcmRequestStateCodec(keys).unseal(token);
      return true;
    } catch (error) {
      if (error instanceof InvalidRequestState) return false;
      throw error;
    }
  };
  const outcomes: Record<string, () => boolean> = {
    "[old,new] opens both": () => opens([oldKey, newKey], oldToken) && opens([oldKey, newKey], newToken),
    "[new,old] opens both": () => opens([newKey, oldKey], oldToken) && opens([newKey, oldKey], newToken),
    "[new] opens old token": () => opens([newKey], oldToken),
    "[new] opens new token": () => opens([newKey], newToken),
    "[old] opens new token": () => opens([oldKey], newToken),
  };

  it.each(Object.entries(rotation.expect))("%s: %s", (name, expected) => {
    const outcome = outcomes[name];
    if (outcome === undefined) throw new Error(`no check for rotation expectation ${name}`);
    expect(outcome()).toBe(expected);
  });

  it("[new,old] mints under the new key", () => {
    const codec = new AesGcmRequestStateCodec([newKey, oldKey]);
    const kidOf = (token: string) => Buffer.from(token.slice(3), "base64url").subarray(0, 4).toString("hex");
    expect(kidOf(codec.seal(Buffer.from("x")))).toBe(kidOf(newToken));
  });
});

describe("vectors: args_digest", () => {
  it.each(vectors.args_digest.map((v) => [v.canonical_json, v] as const))("%s", (_, vector) => {
    if (vector.arguments !== null) {
      expect(pythonJsonDumps(vector.arguments, { sortKeys: true })).toBe(vector.canonical_json);
    }
    expect(argumentsDigest(vector.arguments)).toBe(vector.digest);
  });

  it("resources/read digests {} whatever the arguments", () => {
    const policy = new RequestStateSecurity({ keys: ["k".repeat(32)], bindPrincipal: null });
    const request = { method: "resources/read", target: "reports://q3", arguments: { ignored: true } };
    const token = policy.seal("s", request, { now: 1000 });
    const claims = JSON.parse(Buffer.from(policy.codec.unseal(token)).toString("utf8")) as { a: string };
    expect(claims.a).toBe(vectors.args_digest_resources.digest);
  });
});

describe("vectors: principal", () => {
  it.each(vectors.principal.map((v) => [v.principal, v] as const))("%s", (_, vector) => {
    const [clientId, issuer, subject] = vector.components;
    const principal = authenticatedPrincipal({ clientId, issuer, subject });
    expect(principal).toBe(vector.principal);
    expect(principalClaim(vector.principal, pinnedBytes(vector.salt_hex))).toBe(vector.claim);
    expect(principalClaimMatches(vector.claim, vector.principal)).toBe(true);
  });
});

describe("vectors: envelope", () => {
  it.each(vectors.envelope.map((v) => [v.name, v] as const))("%s", (_, vector) => {
    const codec = new AesGcmRequestStateCodec(vector.keys.map(secretBytes));
    pinNonceSource(codec, pinnedBytes(vector.nonce_hex));
    const policy = new RequestStateSecurity({
      codec,
      ttl: vector.ttl,
      bindPrincipal: () => vector.principal,
    });
    if (vector.salt_hex !== null) pinSaltSource(policy, pinnedBytes(vector.salt_hex));
    const request = vectorRequest(vector.method, vector.params);
    const context = { audience: vector.audience, now: vector.minted_at };

    const token = policy.seal(vector.state, request, context);

    expect(token).toBe(vector.token);
    expect(Buffer.from(codec.unseal(token)).toString("utf8")).toBe(vector.payload);
    expect(policy.open(token, request, { ...context, now: vector.minted_at + 1 })).toBe(vector.state);
  });
});

describe("vectors: verify", () => {
  // The vectors give only the verdict; these are the reasons the reference logs for each case.
  const reasons: Readonly<Record<string, string>> = {
    "at expiry": "expired",
    "after expiry": "expired",
    "61s before iat": "minted in the future",
    "other tool": "request binding",
    "other args": "request binding",
    "other method": "request binding",
    "other audience": "audience",
    "no audience": "audience",
    "other principal": "principal",
    "no principal": "principal drift",
    "unknown key ring": "unknown key",
    "minted without principal, verified with one (drift)": "principal drift",
  };

  it.each(vectors.verify.map((v) => [v.name, v.expect, v] as const))("%s: %s", (name, verdict, vector) => {
    const policy = new RequestStateSecurity({
      keys: vector.keys.map(secretBytes),
      bindPrincipal: () => vector.principal,
    });
    const request = vectorRequest(vector.method, vector.params);
    const open = () => policy.open(vector.token, request, { audience: vector.audience, now: vector.now });
    if (verdict === "accept") {
      expect(open()).toBe(vector.state);
    } else {
      expect(reasonOf(open)).toBe(reasons[name]);
    }
  });
});

describe("vectors: frozen_error", () => {
  it("is the one wire error, frozen", () => {
    expect(INVALID_REQUEST_STATE_ERROR).toStrictEqual(vectors.frozen_error);
    expect(Object.isFrozen(INVALID_REQUEST_STATE_ERROR)).toBe(true);
    expect(Object.isFrozen(INVALID_REQUEST_STATE_ERROR.data)).toBe(true);
  });
});
