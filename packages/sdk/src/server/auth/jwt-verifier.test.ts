import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InvalidTokenError } from "./errors.js";
import { jwtVerifier } from "./jwt-verifier.js";
import {
  accessClaims,
  type IssuerServer,
  type LocalSigner,
  localSigner,
  startIssuerServer,
} from "./test-support/issuer-server.js";

const AUDIENCE = "https://mcp.example/mcp";

let as: IssuerServer;
let signer: LocalSigner;

beforeEach(async () => {
  as = await startIssuerServer();
  signer = await localSigner();
  as.json("/.well-known/oauth-authorization-server", { issuer: as.origin, jwks_uri: `${as.origin}/jwks` });
  as.json("/jwks", { keys: [signer.publicJwk] });
});
afterEach(() => as.close());

const verifier = (overrides: Partial<Parameters<typeof jwtVerifier>[0]> = {}) =>
  jwtVerifier({ issuer: as.origin, audience: AUDIENCE, ...overrides });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as Error).message;
}

describe("jwtVerifier configuration", () => {
  it("refuses symmetric algorithms, none, and an empty list", () => {
    expect(() => verifier({ algorithms: ["ES256", "HS256"] })).toThrow(/HS256 cannot verify/);
    expect(() => verifier({ algorithms: ["none"] })).toThrow(/none cannot verify/);
    expect(() => verifier({ algorithms: [] })).toThrow(/at least one/);
  });

  it("refuses an http issuer on a non-loopback host unless allowed", () => {
    expect(() => jwtVerifier({ issuer: "http://as.example", audience: AUDIENCE })).toThrow(/https/);
    expect(() =>
      jwtVerifier({ issuer: "http://as.example", audience: AUDIENCE, allowInsecureHttp: true }),
    ).not.toThrow();
  });
});

describe("jwtVerifier", () => {
  it("finds the key set through the issuer's metadata and maps the claims to the principal", async () => {
    const token = await signer.sign(accessClaims(as.origin, AUDIENCE));
    const auth = await verifier().verify(token);
    expect(auth).toMatchObject({
      token,
      clientId: "client-1",
      issuer: as.origin,
      subject: "alice",
      scopes: ["a", "b"],
      resource: AUDIENCE,
    });
    expect(auth.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it("uses a configured jwksUri without any discovery", async () => {
    const token = await signer.sign(accessClaims(as.origin, AUDIENCE));
    await verifier({ jwksUri: `${as.origin}/jwks` }).verify(token);
    expect(as.hits.get("/.well-known/oauth-authorization-server")).toBeUndefined();
  });

  it("retries a failed discovery on the next request instead of remembering the failure", async () => {
    as.json("/.well-known/oauth-authorization-server", { error: "down" }, 503);
    const check = verifier();
    const token = await signer.sign(accessClaims(as.origin, AUDIENCE));
    const first = await check.verify(token).catch((e: unknown) => e);
    expect(first).not.toBeInstanceOf(InvalidTokenError);
    as.json("/.well-known/oauth-authorization-server", { issuer: as.origin, jwks_uri: `${as.origin}/jwks` });
    await expect(check.verify(token)).resolves.toMatchObject({ subject: "alice" });
  });

  it("reports an unreachable key set as a failure to check, naming it", async () => {
    as.json("/jwks", {}, 500);
    const token = await signer.sign(accessClaims(as.origin, AUDIENCE));
    const error = await verifier()
      .verify(token)
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(InvalidTokenError);
    expect(String(error)).toContain(`${as.origin}/jwks`);
  });

  it("takes scp and azp from issuers that use them", async () => {
    const claims = accessClaims(as.origin, AUDIENCE, {
      scope: undefined,
      client_id: undefined,
      scp: ["x"],
      azp: "app-7",
    });
    await expect(verifier().verify(await signer.sign(claims))).resolves.toMatchObject({
      clientId: "app-7",
      scopes: ["x"],
    });
  });

  it("refuses a token that names no client", async () => {
    const claims = accessClaims(as.origin, AUDIENCE, { client_id: undefined });
    expect(await refusal(verifier().verify(await signer.sign(claims)))).toMatch(/names no client/);
  });

  it("accepts any of several audiences and reports the one matched", async () => {
    const claims = accessClaims(as.origin, AUDIENCE, {
      aud: ["https://other.example", "https://mcp.example/v2"],
    });
    const auth = await verifier({ audience: [AUDIENCE, "https://mcp.example/v2"] }).verify(
      await signer.sign(claims),
    );
    expect(auth.resource).toBe("https://mcp.example/v2");
  });

  it("requires exp, and honours nbf", async () => {
    const noExp = accessClaims(as.origin, AUDIENCE, { exp: undefined });
    expect(await refusal(verifier().verify(await signer.sign(noExp)))).toMatch(/no expiry/);
    const early = accessClaims(as.origin, AUDIENCE, { nbf: Math.floor(Date.now() / 1000) + 120 });
    expect(await refusal(verifier().verify(await signer.sign(early)))).toMatch(/not valid yet/);
  });

  it("allows the configured clock skew on exp and no more", async () => {
    // The clock stands still: the token is 2 s past its expiry when checked, however long fetching the
    // key set takes on a busy machine, within the default 5 s of skew.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const now = Math.floor(Date.now() / 1000);
      const justExpired = await signer.sign(accessClaims(as.origin, AUDIENCE, { exp: now - 2 }));
      await expect(verifier().verify(justExpired)).resolves.toBeDefined();
      expect(await refusal(verifier({ clockToleranceSec: 0 }).verify(justExpired))).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("accepts only at+jwt by default, and plain JWT (or no typ) when configured", async () => {
    const plain = await signer.sign(accessClaims(as.origin, AUDIENCE), { typ: "JWT" });
    const untyped = await signer.sign(accessClaims(as.origin, AUDIENCE), { typ: undefined });
    const logout = await signer.sign(accessClaims(as.origin, AUDIENCE), { typ: "logout+jwt" });
    const mediaType = await signer.sign(accessClaims(as.origin, AUDIENCE), { typ: "application/at+jwt" });
    expect(await refusal(verifier().verify(plain))).toMatch(/not an access token/);
    expect(await refusal(verifier().verify(untyped))).toMatch(/typ absent/);
    await expect(verifier().verify(mediaType)).resolves.toBeDefined();
    await expect(verifier({ requiredTyp: "jwt" }).verify(plain)).resolves.toBeDefined();
    await expect(verifier({ requiredTyp: "jwt" }).verify(untyped)).resolves.toBeDefined();
    expect(await refusal(verifier({ requiredTyp: "jwt" }).verify(logout))).toMatch(/not an access token/);
  });

  it("refuses garbage as a malformed token", async () => {
    expect(await refusal(verifier().verify("not.a.jwt"))).toMatch(/not a well-formed/);
  });
});

describe("jwtVerifier and the issue time", () => {
  it("refuses a token issued a day in the future, beyond the clock skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signer.sign(
      accessClaims(as.origin, AUDIENCE, { iat: now + 86_400, exp: now + 86_460 }),
    );
    expect(await refusal(verifier().verify(token))).toMatch(/issued in the future/);
  });

  it("accepts an issue time within the clock skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signer.sign(accessClaims(as.origin, AUDIENCE, { iat: now + 3 }));
    await expect(verifier({ clockToleranceSec: 5 }).verify(token)).resolves.toMatchObject({
      subject: "alice",
    });
  });
});
