import { describe, expect, it } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import { argumentsDigest } from "../src/args-digest.js";
import { InvalidRequestState } from "../src/invalid-request-state.js";
import { INVALID_REQUEST_STATE_ERROR } from "../src/invalid-request-state-error.js";
import { DEFAULT_TTL_SECONDS } from "../src/policy-options.js";
import { authenticatedPrincipal } from "../src/principal.js";
import type { RequestStateCodec } from "../src/request-state-codec.js";
import { RequestStateSealError } from "../src/request-state-seal-error.js";
import { RequestStateSecurity } from "../src/request-state-security.js";
import { errorOf, reasonOf } from "./support/reasons.js";

const KEY = "0123456789abcdef0123456789abcdef";
const T = 1_782_345_600;
const deploy = { method: "tools/call", target: "deploy", arguments: { env: "prod" } };
const at = (now: number, extra: { audience?: string | null } = {}) => ({ audience: "srv", now, ...extra });
const as = (principal: string | null) => () => principal;

function claimsOf(policy: RequestStateSecurity, token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(policy.codec.unseal(token)).toString("utf8")) as Record<string, unknown>;
}

/** A codec that authenticates nothing, to feed the policy payloads a real codec would never open. */
const passthrough: RequestStateCodec = {
  seal: (payload) => `raw.${Buffer.from(payload).toString("base64url")}`,
  unseal: (token) => Buffer.from(token.slice(4), "base64url"),
};
const forge = (claims: unknown) => passthrough.seal(Buffer.from(JSON.stringify(claims)));
const validClaims = (extra: Record<string, unknown> = {}) => ({
  v: 1,
  iat: T,
  exp: T + 600,
  m: "tools/call",
  t: "deploy",
  a: argumentsDigest({ env: "prod" }),
  s: "state",
  aud: "srv",
  ...extra,
});

describe("policy construction", () => {
  it("[13] keys and codec together, or neither, are refused", () => {
    const codec = new AesGcmRequestStateCodec([KEY]);
    const both = errorOf(() => new RequestStateSecurity({ keys: [KEY], codec } as never));
    const neither = errorOf(() => new RequestStateSecurity({} as never));
    for (const error of [both, neither]) {
      expect(error.message).toMatch(/^RequestStateSecurity takes exactly one of keys or codec/);
    }
  });

  it("[13] TypeScript rejects both and neither at compile time", () => {
    const codec = new AesGcmRequestStateCodec([KEY]);
    // @ts-expect-error both keys and codec
    expect(() => new RequestStateSecurity({ keys: [KEY], codec })).toThrow();
    // @ts-expect-error neither keys nor codec
    expect(() => new RequestStateSecurity({ ttl: 5 })).toThrow();
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    "[14] ttl %s is refused",
    (ttl) => {
      for (const make of [
        () => new RequestStateSecurity({ keys: [KEY], ttl }),
        () => RequestStateSecurity.ephemeral({ ttl }),
      ]) {
        expect(errorOf(make).message).toContain(
          `request-state ttl must be a positive finite number, got ${ttl}`,
        );
      }
    },
  );

  it("[14] a string ttl is refused too", () => {
    expect(errorOf(() => new RequestStateSecurity({ keys: [KEY], ttl: "600" as never })).message).toContain(
      "positive finite",
    );
  });

  it("[15] two ephemeral policies cannot read each other's tokens", () => {
    const [a, b] = [RequestStateSecurity.ephemeral(), RequestStateSecurity.ephemeral()];
    const token = a.seal("s", deploy, at(T));
    expect(a.open(token, deploy, at(T))).toBe("s");
    expect(reasonOf(() => b.open(token, deploy, at(T)))).toBe("unknown key");
  });

  it("[15] defaults: ttl 600, no audience, authenticatedPrincipal binding", () => {
    const policy = RequestStateSecurity.ephemeral();
    expect(policy.ttl).toBe(DEFAULT_TTL_SECONDS);
    expect(policy.audience).toBeUndefined();
    expect(policy.bindPrincipal).toBe(authenticatedPrincipal);
    expect(new RequestStateSecurity({ keys: [KEY], bindPrincipal: null }).bindPrincipal).toBeNull();
  });

  it("refuses a codec without seal/unseal, a non-function bindPrincipal and an empty audience", () => {
    expect(errorOf(() => new RequestStateSecurity({ codec: {} as never })).message).toContain(
      "codec must implement",
    );
    expect(
      errorOf(() => new RequestStateSecurity({ keys: [KEY], bindPrincipal: "x" as never })).message,
    ).toContain("bindPrincipal must be a function or null");
    expect(errorOf(() => new RequestStateSecurity({ keys: [KEY], audience: "" })).message).toContain(
      "audience must be",
    );
  });
});

describe("[16] authenticatedPrincipal", () => {
  it("is null without an identity", () => {
    expect(authenticatedPrincipal()).toBeNull();
    expect(authenticatedPrincipal(null)).toBeNull();
    expect(authenticatedPrincipal({})).toBeNull();
  });

  it("is the compact JSON triple with an identity; two subjects of one client differ", () => {
    expect(authenticatedPrincipal({ clientId: "client-123" })).toBe('["client-123",null,null]');
    expect(authenticatedPrincipal({ clientId: "client-123", subject: "alice" })).toBe(
      '["client-123",null,"alice"]',
    );
    expect(
      authenticatedPrincipal({ clientId: "client-123", issuer: "https://as.example", subject: "alice" }),
    ).toBe('["client-123","https://as.example","alice"]');
    expect(authenticatedPrincipal({ clientId: "c", subject: "alice" })).not.toBe(
      authenticatedPrincipal({ clientId: "c", subject: "bob" }),
    );
  });
});

describe("sealing and opening", () => {
  const policy = new RequestStateSecurity({ keys: [KEY] });

  it("[17] the token is sealed (v1., not the plaintext) and a faithful echo opens to exactly the plaintext", () => {
    const token = policy.seal("awaiting-confirm:9f2e", deploy, at(T));
    expect(token.startsWith("v1.")).toBe(true);
    expect(token).not.toContain("awaiting-confirm");
    expect(policy.open(token, deploy, at(T + 1))).toBe("awaiting-confirm:9f2e");
  });

  it("[18] the claims carry the context audience (the server name)", () => {
    expect(claimsOf(policy, policy.seal("s", deploy, at(T))).aud).toBe("srv");
  });

  it("[20] resources/read binds the exact URI and {} arguments; prompts bind name and arguments", () => {
    const read = { method: "resources/read", target: "reports://q3/summary?x=1" };
    const token = policy.seal("café", read, at(T));
    expect(claimsOf(policy, token)).toMatchObject({
      m: "resources/read",
      t: read.target,
      s: "café",
      a: argumentsDigest({}),
    });
    expect(reasonOf(() => policy.open(token, { ...read, target: "reports://q3/summary" }, at(T)))).toBe(
      "request binding",
    );
    const prompt = { method: "prompts/get", target: "briefing", arguments: { topic: "q3" } };
    const promptToken = policy.seal("step-2", prompt, at(T));
    expect(claimsOf(policy, promptToken)).toMatchObject({
      m: "prompts/get",
      t: "briefing",
      a: argumentsDigest({ topic: "q3" }),
    });
    expect(policy.open(promptToken, prompt, at(T))).toBe("step-2");
  });

  it("[21] a tampered token is refused", () => {
    const token = policy.seal("s", deploy, at(T));
    const tampered = token.slice(0, 20) + (token[20] === "A" ? "B" : "A") + token.slice(21);
    expect(reasonOf(() => policy.open(tampered, deploy, at(T)))).toBe("seal");
  });

  it("[22] ttl 600: refused at mint+601, then accepted at mint+599 (tokens are not single-use)", () => {
    const token = policy.seal("s", deploy, at(T));
    expect(reasonOf(() => policy.open(token, deploy, at(T + 601)))).toBe("expired");
    expect(policy.open(token, deploy, at(T + 599))).toBe("s");
    expect(policy.open(token, deploy, at(T + 599))).toBe("s");
    expect(reasonOf(() => policy.open(token, deploy, at(T + 600)))).toBe("expired");
  });

  it("[22] fractional ttl 0.5: minted at t+0.9 accepted at t+1.3; minted at t+2.0 refused at t+2.6", () => {
    const short = new RequestStateSecurity({ keys: [KEY], ttl: 0.5 });
    expect(short.open(short.seal("s", deploy, at(T + 0.9)), deploy, at(T + 1.3))).toBe("s");
    expect(reasonOf(() => short.open(short.seal("s", deploy, at(T + 2.0)), deploy, at(T + 2.6)))).toBe(
      "expired",
    );
  });

  it("a lowered ttl shortens the tokens already issued under the longer one", () => {
    const long = new RequestStateSecurity({ keys: [KEY], ttl: 3600 });
    const token = long.seal("s", deploy, at(T));
    const lowered = new RequestStateSecurity({ keys: [KEY], ttl: 600 });
    expect(long.open(token, deploy, at(T + 1800))).toBe("s");
    expect(reasonOf(() => lowered.open(token, deploy, at(T + 1800)))).toBe("expired");
    expect(lowered.open(token, deploy, at(T + 599))).toBe("s");
  });

  it("[23] future skew: refused 120 s before iat, accepted 30 s before", () => {
    const token = policy.seal("s", deploy, at(T));
    expect(reasonOf(() => policy.open(token, deploy, at(T - 120)))).toBe("minted in the future");
    expect(policy.open(token, deploy, at(T - 30))).toBe("s");
  });

  it("[24] a token minted on tool alpha is refused on beta, then completes on alpha", () => {
    const alpha = { method: "tools/call", target: "alpha" };
    const token = policy.seal("s", alpha, at(T));
    expect(reasonOf(() => policy.open(token, { ...alpha, target: "beta" }, at(T)))).toBe("request binding");
    expect(reasonOf(() => policy.open(token, { ...alpha, method: "prompts/get" }, at(T)))).toBe(
      "request binding",
    );
    expect(policy.open(token, alpha, at(T))).toBe("s");
  });

  it("[25] other arguments are refused, the original ones then complete; key order does not matter", () => {
    const token = policy.seal("s", { ...deploy, arguments: { env: "prod", n: 1 } }, at(T));
    expect(
      reasonOf(() => policy.open(token, { ...deploy, arguments: { env: "staging", n: 1 } }, at(T))),
    ).toBe("request binding");
    expect(policy.open(token, { ...deploy, arguments: { n: 1, env: "prod" } }, at(T))).toBe("s");
  });

  it("[25] missing and null arguments are {}; lone-surrogate arguments digest without crashing and differ", () => {
    const noArgs = { method: "tools/call", target: "deploy" };
    expect(policy.open(policy.seal("s", noArgs, at(T)), { ...noArgs, arguments: null }, at(T))).toBe("s");
    expect(policy.open(policy.seal("s", noArgs, at(T)), { ...noArgs, arguments: {} }, at(T))).toBe("s");
    const low = argumentsDigest({ x: "\udc00" });
    const high = argumentsDigest({ x: "\ud800" });
    expect(low).not.toBe(high);
    const token = policy.seal("s", { ...noArgs, arguments: { x: "\ud800" } }, at(T));
    expect(reasonOf(() => policy.open(token, { ...noArgs, arguments: { x: "\udc00" } }, at(T)))).toBe(
      "request binding",
    );
  });

  it("[25] arguments that are not JSON fail closed: seal error on mint, request binding on open", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const bad = { ...deploy, arguments: circular };
    expect(errorOf(() => policy.seal("s", bad, at(T)))).toBeInstanceOf(RequestStateSealError);
    expect(reasonOf(() => policy.open(policy.seal("s", deploy, at(T)), bad, at(T)))).toBe("request binding");
  });
});

describe("principal binding", () => {
  const minting = (principal: string | null) =>
    new RequestStateSecurity({ keys: [KEY], bindPrincipal: as(principal) });

  it("[26] alice's token: refused without a principal, refused for bob, accepted for alice", () => {
    const token = minting("alice").seal("s", deploy, at(T));
    expect(reasonOf(() => minting(null).open(token, deploy, at(T)))).toBe("principal drift");
    expect(reasonOf(() => minting("bob").open(token, deploy, at(T)))).toBe("principal");
    expect(minting("alice").open(token, deploy, at(T))).toBe("s");
  });

  it("[26] a token minted without a principal is refused when one is present", () => {
    const token = minting(null).seal("s", deploy, at(T));
    expect(reasonOf(() => minting("alice").open(token, deploy, at(T)))).toBe("principal drift");
  });

  it("[27] default binding: two subjects of one client cannot use each other's tokens", () => {
    const policy = new RequestStateSecurity({ keys: [KEY] });
    const alice = {
      identity: { clientId: "mcp-web", issuer: "https://auth.example.com/", subject: "alice" },
    };
    const bob = { identity: { ...alice.identity, subject: "bob" } };
    const token = policy.seal("alice-secret", deploy, { ...at(T), ...alice });
    expect(reasonOf(() => policy.open(token, deploy, { ...at(T), ...bob }))).toBe("principal");
    expect(reasonOf(() => policy.open(token, deploy, at(T)))).toBe("principal drift");
    expect(policy.open(token, deploy, { ...at(T), ...alice })).toBe("alice-secret");
  });

  it("[27] bindPrincipal receives the identity and the whole context", () => {
    const seen: unknown[] = [];
    const policy = new RequestStateSecurity({
      keys: [KEY],
      bindPrincipal: (identity, context) => {
        seen.push(identity, context.audience);
        return identity?.subject ?? null;
      },
    });
    policy.seal("s", deploy, { ...at(T), identity: { subject: "carol" } });
    expect(seen).toEqual([{ subject: "carol" }, "srv"]);
  });

  it("[28] bindPrincipal throwing: RequestStateSealError on seal, 'principal binding error' on open", () => {
    const boom = new Error("directory down");
    const failing = new RequestStateSecurity({
      keys: [KEY],
      bindPrincipal: () => {
        throw boom;
      },
    });
    const sealError = errorOf(() => failing.seal("s", deploy, at(T)));
    expect(sealError).toBeInstanceOf(RequestStateSealError);
    expect((sealError as RequestStateSealError).reason).toBe("bindPrincipal threw");
    expect(sealError.cause).toBe(boom);
    const token = minting("alice").seal("s", deploy, at(T));
    expect(reasonOf(() => failing.open(token, deploy, at(T)))).toBe("principal binding error");
  });

  it.each([
    ["number", 42],
    ["undefined", undefined],
    ["object", { id: "alice" }],
  ])("[28] bindPrincipal returning a %s: seal error on mint, refused on open", (type, value) => {
    const odd = new RequestStateSecurity({ keys: [KEY], bindPrincipal: () => value as never });
    const sealError = errorOf(() => odd.seal("s", deploy, at(T)));
    expect(sealError).toBeInstanceOf(RequestStateSealError);
    expect(sealError.message).toContain(`bindPrincipal returned ${type === "object" ? "Object" : type}`);
    const token = minting("alice").seal("s", deploy, at(T));
    expect(reasonOf(() => odd.open(token, deploy, at(T)))).toMatch(
      /^bindPrincipal returned \w+, expected string or null$/,
    );
  });

  it("[29] two mints for one principal carry different p claims", () => {
    const policy = minting("alice");
    const [first, second] = [policy.seal("s", deploy, at(T)), policy.seal("s", deploy, at(T))];
    expect(claimsOf(policy, first).p).not.toBe(claimsOf(policy, second).p);
    expect(String(claimsOf(policy, first).p)).toHaveLength(32);
  });

  it("disabled binding (null) refuses tokens that carry a principal", () => {
    const token = minting("alice").seal("s", deploy, at(T));
    const unbound = new RequestStateSecurity({ keys: [KEY], bindPrincipal: null });
    expect(reasonOf(() => unbound.open(token, deploy, at(T)))).toBe("principal drift");
    expect(unbound.open(unbound.seal("s", deploy, at(T)), deploy, at(T))).toBe("s");
  });
});

describe("audience", () => {
  it("[30] servers named billing and payments sharing one key refuse each other's tokens", () => {
    const policy = new RequestStateSecurity({ keys: [KEY] });
    const token = policy.seal("s", deploy, at(T, { audience: "billing" }));
    expect(reasonOf(() => policy.open(token, deploy, at(T, { audience: "payments" })))).toBe("audience");
  });

  it("[30] an explicit audience overrides the server name", () => {
    const fleet = new RequestStateSecurity({ keys: [KEY], audience: "prod-fleet" });
    const token = fleet.seal("s", deploy, at(T, { audience: "billing-1" }));
    expect(claimsOf(fleet, token).aud).toBe("prod-fleet");
    expect(fleet.open(token, deploy, at(T, { audience: "billing-2" }))).toBe("s");
  });

  it("[30] a policy with an audience and one without refuse each other's tokens, both ways", () => {
    const withAudience = new RequestStateSecurity({ keys: [KEY], audience: "prod-fleet" });
    const without = new RequestStateSecurity({ keys: [KEY] });
    const none = { audience: null };
    expect(reasonOf(() => without.open(withAudience.seal("s", deploy, at(T)), deploy, at(T, none)))).toBe(
      "audience",
    );
    expect(reasonOf(() => withAudience.open(without.seal("s", deploy, at(T, none)), deploy, at(T)))).toBe(
      "audience",
    );
  });

  it("[31] without a principal the envelope is exactly v, iat, exp, m, t, a, s, aud", () => {
    const policy = new RequestStateSecurity({ keys: [KEY], ttl: 300 });
    const claims = claimsOf(policy, policy.seal("s", deploy, at(T + 0.25)));
    expect(Object.keys(claims)).toEqual(["v", "iat", "exp", "m", "t", "a", "s", "aud"]);
    expect(claims).toMatchObject({ v: 1, iat: T + 0.25, exp: T + 0.25 + 300, aud: "srv" });
  });

  it("[31] without any audience there is no aud claim", () => {
    const policy = new RequestStateSecurity({ keys: [KEY] });
    expect(Object.keys(claimsOf(policy, policy.seal("s", deploy, { now: T })))).not.toContain("aud");
  });

  it("[32] each round reseals: round 2's token differs and carries the round-2 time", () => {
    const policy = new RequestStateSecurity({ keys: [KEY] });
    const round1 = policy.seal("s", deploy, at(T));
    const state = policy.open(round1, deploy, at(T + 100));
    const round2 = policy.seal(state, deploy, at(T + 100));
    expect(round2).not.toBe(round1);
    expect(claimsOf(policy, round2).iat).toBe(T + 100);
    expect(policy.open(round2, deploy, at(T + 650))).toBe("s");
  });

  it("[33] the default (ephemeral) policy seals and refuses a plaintext echo", () => {
    const policy = RequestStateSecurity.ephemeral();
    expect(policy.seal("s", deploy, at(T)).startsWith("v1.")).toBe(true);
    expect(reasonOf(() => policy.open("s", deploy, at(T)))).toBe("malformed");
  });

  it("[41] a shared key and the same name: another instance completes the round; other names refuse", () => {
    const workerA = new RequestStateSecurity({ keys: [KEY] });
    const workerB = new RequestStateSecurity({ keys: [KEY] });
    const token = workerA.seal("s", deploy, at(T, { audience: "billing" }));
    expect(workerB.open(token, deploy, at(T, { audience: "billing" }))).toBe("s");
    const perPod = workerA.seal("s", deploy, at(T, { audience: "billing-1" }));
    expect(reasonOf(() => workerB.open(perPod, deploy, at(T, { audience: "billing-2" })))).toBe("audience");
  });
});

describe("refusals", () => {
  const policy = new RequestStateSecurity({ keys: [KEY] });

  it.each([123, null, undefined, {}, ["v1.x"]])("[34] a non-string requestState (%j) is refused", (token) => {
    expect(reasonOf(() => policy.open(token, deploy, at(T)))).toBe("non-string requestState");
  });

  it("[37] a codec throwing a foreign exception is 'codec error' with the cause kept for the log", () => {
    const cause = new RangeError("hsm offline");
    const broken = new RequestStateSecurity({
      codec: {
        seal: () => "x",
        unseal: () => {
          throw cause;
        },
      },
    });
    const error = errorOf(() => broken.open("x", deploy, at(T)));
    expect(error).toBeInstanceOf(InvalidRequestState);
    expect((error as InvalidRequestState).reason).toBe("codec error");
    expect(error.cause).toBe(cause);
  });

  it("[37] a codec's own InvalidRequestState reason is passed through", () => {
    const picky = new RequestStateSecurity({
      codec: {
        seal: () => "x",
        unseal: () => {
          throw new InvalidRequestState("boom");
        },
      },
    });
    expect(reasonOf(() => picky.open("x", deploy, at(T)))).toBe("boom");
  });

  it("[37] a codec returning something other than bytes is 'codec error'", () => {
    const odd = new RequestStateSecurity({ codec: { seal: () => "x", unseal: () => "text" as never } });
    expect(reasonOf(() => odd.open("x", deploy, at(T)))).toBe("codec error");
  });

  it("[37] a codec whose seal throws gives a RequestStateSealError whose message holds none of its text", () => {
    const failing = new RequestStateSecurity({
      codec: {
        seal: () => {
          throw new Error("secret-kms-detail");
        },
        unseal: () => new Uint8Array(),
      },
    });
    const error = errorOf(() => failing.seal("s", deploy, at(T)));
    expect(error).toBeInstanceOf(RequestStateSealError);
    expect(error.message).not.toContain("secret-kms-detail");
    expect((error.cause as Error).message).toBe("secret-kms-detail");
  });

  it("[37] a codec whose seal returns a non-string gives a RequestStateSealError", () => {
    const odd = new RequestStateSecurity({
      codec: { seal: () => 5 as never, unseal: () => new Uint8Array() },
    });
    expect(errorOf(() => odd.seal("s", deploy, at(T)))).toBeInstanceOf(RequestStateSealError);
  });

  const forged = new RequestStateSecurity({ codec: passthrough, bindPrincipal: null });

  it("the passthrough codec accepts well-formed claims (sanity check for [38])", () => {
    expect(forged.open(forge(validClaims()), deploy, at(T))).toBe("state");
  });

  it.each([
    ["not JSON", passthrough.seal(Buffer.from("{not json"))],
    ["not UTF-8", passthrough.seal(Buffer.from([0x7b, 0xff, 0x7d]))],
    ["a JSON array", forge([validClaims()])],
    ["a JSON string", forge("state")],
    ["no claims", forge({})],
    ["v: 2", forge(validClaims({ v: 2 }))],
    ["v: '1'", forge(validClaims({ v: "1" }))],
    ["a non-string s", forge(validClaims({ s: 5 }))],
    ["no iat", forge({ ...validClaims(), iat: undefined })],
    ["no exp", forge({ ...validClaims(), exp: undefined })],
  ])("[38] codec-authentic payload with %s is malformed", (_, token) => {
    expect(reasonOf(() => forged.open(token, deploy, at(T)))).toBe("malformed");
  });

  it.each([
    ["a string iat", { iat: "now" }, "minted in the future"],
    ["a null exp", { exp: null }, "expired"],
    ["a boolean exp", { exp: true }, "expired"],
    ["no m", { m: undefined }, "request binding"],
  ])("[38] codec-authentic payload with %s is refused", (_, extra, reason) => {
    expect(reasonOf(() => forged.open(forge(validClaims(extra)), deploy, at(T)))).toBe(reason);
  });

  it.each([
    ["not base64", "not*base64"],
    ["an int", 5],
    ["an object", { p: "x" }],
    ["too short", "AAAA"],
    ["well-formed but for another principal", "A".repeat(32)],
  ])("[38] a forged p claim that is %s is refused as 'principal'", (_, p) => {
    const bound = new RequestStateSecurity({ codec: passthrough, bindPrincipal: as("alice") });
    expect(reasonOf(() => bound.open(forge(validClaims({ p })), deploy, at(T)))).toBe("principal");
  });

  it("[38] extra claims are ignored", () => {
    expect(forged.open(forge(validClaims({ future: { x: 1 } })), deploy, at(T))).toBe("state");
  });

  it("[39] tampered, expired and rebound tokens fail with InvalidRequestState whose reasons leak nothing", () => {
    const secret = "plaintext-state-4471";
    const principal = '["mcp-web",null,"alice"]';
    const bound = new RequestStateSecurity({ keys: [KEY], bindPrincipal: as(principal) });
    const token = bound.seal(secret, deploy, at(T));
    const failures = [
      () => bound.open(`${token.slice(0, -2)}${token.endsWith("AA") ? "BA" : "AA"}`, deploy, at(T)),
      () => bound.open(token, deploy, at(T + 10_000)),
      () => bound.open(token, { ...deploy, target: "other" }, at(T)),
    ].map(errorOf);
    for (const error of failures) {
      expect(error).toBeInstanceOf(InvalidRequestState);
      for (const text of [error.message, (error as InvalidRequestState).reason]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain("alice");
        expect(text).not.toContain(token.slice(3, 20));
      }
    }
  });

  it("[42] a requestState the server never minted is malformed", () => {
    expect(reasonOf(() => policy.open("round-1-from-worker-a", deploy, at(T)))).toBe("malformed");
  });

  it("[21][39] every rejection maps to the one frozen wire error", () => {
    expect(INVALID_REQUEST_STATE_ERROR).toEqual({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
    expect(() => {
      (INVALID_REQUEST_STATE_ERROR as { code: number }).code = 1;
    }).toThrow(TypeError);
  });

  it("seal refuses a non-string state, a non-finite clock and non-string targets", () => {
    expect(errorOf(() => policy.seal(5 as never, deploy, at(T)))).toBeInstanceOf(RequestStateSealError);
    expect(errorOf(() => policy.seal("s", deploy, at(Number.NaN)))).toBeInstanceOf(RequestStateSealError);
    expect(
      errorOf(() => policy.seal("s", { method: "tools/call", target: 5 as never }, at(T))),
    ).toBeInstanceOf(RequestStateSealError);
  });

  it("open and seal default to the system clock", () => {
    const token = policy.seal("s", deploy, { audience: "srv" });
    const iat = claimsOf(policy, token).iat as number;
    expect(Math.abs(iat - Date.now() / 1000)).toBeLessThan(5);
    expect(policy.open(token, deploy, { audience: "srv" })).toBe("s");
  });
});
