import { createHash } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryOnceStore } from "../fleet/memory-once-store.js";
import { dpopProofVerifier } from "./dpop-proof.js";
import { DpopNonceError, InvalidDpopProofError } from "./errors.js";

const RESOURCE = "https://mcp.example/mcp";
const TOKEN = "access-token-1";
const NOW_MS = 1_800_000_000_000;

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
let key: KeyPair;
let publicJwk: JWK;
let thumbprint: string;

beforeAll(async () => {
  key = await generateKeyPair("ES256", { extractable: true });
  publicJwk = await exportJWK(key.publicKey);
  thumbprint = await calculateJwkThumbprint(publicJwk, "sha256");
});

interface ProofParts {
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  signer?: KeyPair;
  jwk?: JWK;
}

let counter = 0;
async function proof(parts: ProofParts = {}): Promise<string> {
  const signer = parts.signer ?? key;
  const jwk = parts.jwk ?? (parts.signer ? await exportJWK(parts.signer.publicKey) : publicJwk);
  const claims: Record<string, unknown> = {
    htm: "POST",
    htu: RESOURCE,
    iat: Math.floor(NOW_MS / 1000),
    jti: `jti-${++counter}`,
    ath: createHash("sha256").update(TOKEN).digest("base64url"),
    ...parts.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk, ...parts.header })
    .sign(signer.privateKey);
}

const verifier = () => dpopProofVerifier({ resourceUrl: RESOURCE, now: () => NOW_MS });

async function refusal(proofValue: string, input: { method?: string; boundThumbprint?: string } = {}) {
  const error = await verifier()
    .verify({
      proof: proofValue,
      method: input.method ?? "POST",
      accessToken: TOKEN,
      boundThumbprint: input.boundThumbprint ?? thumbprint,
    })
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toBeInstanceOf(InvalidDpopProofError);
  return (error as Error).message;
}

describe("dpopProofVerifier", () => {
  it("accepts a proof for this request and returns its key's thumbprint", async () => {
    const result = await verifier().verify({
      proof: await proof({ claims: { htu: "https://MCP.example:443/mcp?x=1#f" } }),
      method: "POST",
      accessToken: TOKEN,
      boundThumbprint: thumbprint,
    });
    expect(result).toBe(thumbprint);
  });

  it("refuses a typ other than dpop+jwt", async () => {
    expect(await refusal(await proof({ header: { typ: "JWT" } }))).toMatch(/dpop\+jwt/);
  });

  it("refuses an algorithm outside the allow-list", async () => {
    const restricted = dpopProofVerifier({ resourceUrl: RESOURCE, algorithms: ["EdDSA"], now: () => NOW_MS });
    await expect(
      restricted.verify({
        proof: await proof(),
        method: "POST",
        accessToken: TOKEN,
        boundThumbprint: thumbprint,
      }),
    ).rejects.toBeInstanceOf(InvalidDpopProofError);
    expect(() => dpopProofVerifier({ resourceUrl: RESOURCE, algorithms: ["HS256"] })).toThrow(/asymmetric/);
  });

  it("refuses a jwk that carries the private key", async () => {
    const privateJwk = await exportJWK(key.privateKey);
    expect(await refusal(await proof({ jwk: privateJwk }))).toMatch(/public key/);
  });

  it("refuses a proof whose signature is not by its jwk", async () => {
    const other = await generateKeyPair("ES256", { extractable: true });
    expect(await refusal(await proof({ signer: other, jwk: publicJwk }))).toMatch(/signed by its jwk/);
  });

  it("refuses a proof for another method (htm)", async () => {
    expect(await refusal(await proof({ claims: { htm: "GET" } }))).toMatch(/htm must be POST/);
  });

  it("refuses a proof for another URL (htu), host or path", async () => {
    expect(await refusal(await proof({ claims: { htu: "https://evil.example/mcp" } }))).toMatch(/htu/);
    expect(await refusal(await proof({ claims: { htu: "https://mcp.example/other" } }))).toMatch(/htu/);
  });

  it("refuses an iat outside the window, either way", async () => {
    const iat = Math.floor(NOW_MS / 1000);
    expect(await refusal(await proof({ claims: { iat: iat - 61 } }))).toMatch(/iat/);
    expect(await refusal(await proof({ claims: { iat: iat + 61 } }))).toMatch(/iat/);
    const wide = dpopProofVerifier({ resourceUrl: RESOURCE, iatWindowSec: 120, now: () => NOW_MS });
    await expect(
      wide.verify({
        proof: await proof({ claims: { iat: iat - 90 } }),
        method: "POST",
        accessToken: TOKEN,
        boundThumbprint: thumbprint,
      }),
    ).resolves.toBe(thumbprint);
  });

  it("refuses a missing or wrong ath", async () => {
    expect(await refusal(await proof({ claims: { ath: undefined } }))).toMatch(/ath/);
    expect(await refusal(await proof({ claims: { ath: "x" } }))).toMatch(/ath/);
  });

  it("refuses a key other than the one the token is bound to (cnf.jkt)", async () => {
    expect(await refusal(await proof(), { boundThumbprint: "another-thumbprint" })).toMatch(/cnf\.jkt/);
  });

  it("refuses a replayed jti within the window, and remembers only so many", async () => {
    const once = verifier();
    const input = { proof: await proof(), method: "POST", accessToken: TOKEN, boundThumbprint: thumbprint };
    await expect(once.verify(input)).resolves.toBe(thumbprint);
    await expect(once.verify(input)).rejects.toThrow(/replayed/);
    expect(await refusal(await proof({ claims: { jti: undefined } }))).toMatch(/jti/);

    const small = dpopProofVerifier({ resourceUrl: RESOURCE, replayCacheSize: 1, now: () => NOW_MS });
    const first = { ...input, proof: await proof() };
    await small.verify(first);
    await small.verify({ ...input, proof: await proof() });
    // The cache holds one id: the first was pushed out, which is the documented cost of a bound.
    await expect(small.verify(first)).resolves.toBe(thumbprint);
  });

  it("with a shared replayStore, refuses on one verifier a proof another one took, for the rest of its window", async () => {
    const store = new MemoryOnceStore({ now: () => NOW_MS });
    const claimed: number[] = [];
    const shared = {
      claim: (id: string, token: string, ttlMs: number) => {
        claimed.push(ttlMs);
        return store.claim(id, token, ttlMs);
      },
    };
    const [a, b] = [0, 1].map(() =>
      dpopProofVerifier({ resourceUrl: RESOURCE, replayStore: shared, now: () => NOW_MS }),
    );
    const input = { proof: await proof(), method: "POST", accessToken: TOKEN, boundThumbprint: thumbprint };
    await expect(a?.verify(input)).resolves.toBe(thumbprint);
    await expect(b?.verify(input)).rejects.toThrow(/replayed/);
    await expect(b?.verify({ ...input, proof: await proof() })).resolves.toBe(thumbprint);
    // iat is now, so the id is held for the whole 60 s window.
    expect(claimed[0]).toBe(60_000);
  });

  it("fails closed when the replayStore cannot answer", async () => {
    const down = dpopProofVerifier({
      resourceUrl: RESOURCE,
      replayStore: { claim: () => Promise.reject(new Error("the store is away")) },
      now: () => NOW_MS,
    });
    const input = { proof: await proof(), method: "POST", accessToken: TOKEN, boundThumbprint: thumbprint };
    await expect(down.verify(input)).rejects.toThrow("the store is away");
  });

  it("requires a current server nonce when nonces are configured", async () => {
    let clock = NOW_MS;
    const withNonces = dpopProofVerifier({
      resourceUrl: RESOURCE,
      nonce: { secret: "a development nonce secret of 32+ bytes", lifetimeSec: 300 },
      iatWindowSec: 3600,
      now: () => clock,
    });
    const input = async (claims: Record<string, unknown>) => ({
      proof: await proof({ claims: { iat: Math.floor(clock / 1000), ...claims } }),
      method: "POST",
      accessToken: TOKEN,
      boundThumbprint: thumbprint,
    });
    const refused = await withNonces.verify(await input({})).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DpopNonceError);
    const nonce = (refused as DpopNonceError).nonce;
    expect(nonce).toBe(withNonces.currentNonce());
    await expect(withNonces.verify(await input({ nonce }))).resolves.toBe(thumbprint);
    await expect(withNonces.verify(await input({ nonce: `${nonce}x` }))).rejects.toBeInstanceOf(
      DpopNonceError,
    );
    clock += 600_000;
    await expect(withNonces.verify(await input({ nonce }))).rejects.toBeInstanceOf(DpopNonceError);
    expect(() => dpopProofVerifier({ resourceUrl: RESOURCE, nonce: { secret: "short" } })).toThrow(
      /32 bytes/,
    );
  });
});
