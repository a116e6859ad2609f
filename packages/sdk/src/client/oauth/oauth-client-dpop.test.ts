import { createHash } from "node:crypto";
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  jwtVerify,
} from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthChallenge } from "../auth-provider.js";
import { oauthClientProvider } from "./oauth-client-provider.js";
import {
  type ScriptedAuthorizationServer,
  startScriptedAuthorizationServer,
} from "./test-support/scripted-authorization-server.js";

let as: ScriptedAuthorizationServer;
let issued: number;
beforeEach(async () => {
  as = await startScriptedAuthorizationServer();
  issued = 0;
  // A DPoP-capable server binds every token it issues to the key of the request's proof.
  as.onToken = (call) => ({
    body: {
      access_token: `at-${++issued}`,
      token_type: call.dpop ? "DPoP" : "Bearer",
      expires_in: 300,
      refresh_token: `rt-${issued}`,
    },
  });
});
afterEach(() => as.close());

function challenge(overrides: Partial<AuthChallenge> = {}): AuthChallenge {
  return {
    resource: new URL(as.resourceUrl),
    status: 401,
    wwwAuthenticate: `DPoP resource_metadata="${as.origin}/.well-known/oauth-protected-resource/mcp"`,
    attempt: 1,
    ...overrides,
  };
}

/** Verifies a proof by the key in its own header, as RFC 9449 §4.3 does, and returns its claims and jkt. */
async function verified(proof: string | undefined) {
  const header = decodeProtectedHeader(proof ?? "");
  expect(header.typ).toBe("dpop+jwt");
  const jwk = header.jwk as JWK;
  expect(jwk.d).toBeUndefined();
  const { payload } = await jwtVerify(proof ?? "", await importJWK(jwk, header.alg));
  return { payload, jkt: await calculateJwkThumbprint(jwk) };
}

const ath = (token: string) => createHash("sha256").update(token).digest("base64url");

function dpopClient(now?: () => number) {
  return oauthClientProvider({
    grant: "client_credentials",
    clientId: "svc",
    clientSecret: "s",
    clientIssuer: as.issuer,
    dpop: true,
    ...(now ? { now } : {}),
  });
}

describe("oauthClientProvider with DPoP", () => {
  it("proves the token request and each MCP request with one key, binding each proof to the token", async () => {
    const provider = dpopClient();
    expect(await provider.handleChallenge(challenge())).toBe(true);
    const tokenProof = await verified(as.tokenCalls[0]?.dpop);
    expect(tokenProof.payload).toMatchObject({ htm: "POST", htu: `${as.origin}/token` });

    const resource = new URL(as.resourceUrl);
    const authorization = await provider.authorization(resource);
    expect(authorization).toBe("DPoP at-1");
    const first = await verified(await provider.proof?.(resource, "POST", authorization as string));
    const second = await verified(await provider.proof?.(resource, "GET", authorization as string));
    expect(first.payload).toMatchObject({ htm: "POST", htu: as.resourceUrl, ath: ath("at-1") });
    expect(second.payload.htm).toBe("GET");
    expect(second.payload.jti).not.toBe(first.payload.jti);
    expect(first.jkt).toBe(tokenProof.jkt);
    expect(second.jkt).toBe(tokenProof.jkt);
  });

  it("sends no proof with a Bearer token, nor without the dpop option", async () => {
    const plain = oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "s",
      clientIssuer: as.issuer,
    });
    await plain.handleChallenge(challenge());
    expect(as.tokenCalls[0]?.dpop).toBeUndefined();
    expect(await plain.authorization(new URL(as.resourceUrl))).toBe("Bearer at-1");
    expect(await plain.proof?.(new URL(as.resourceUrl), "POST", "Bearer at-1")).toBeUndefined();
    const bound = dpopClient();
    expect(await bound.proof?.(new URL(as.resourceUrl), "POST", "Bearer at-1")).toBeUndefined();
  });

  it("retries a token request the server refuses with use_dpop_nonce, with the nonce it sent", async () => {
    const answer = as.onToken;
    as.onToken = (call) =>
      decodeJwt(call.dpop ?? "").nonce === "as-nonce-1"
        ? answer(call)
        : {
            status: 400,
            body: { error: "use_dpop_nonce" },
            headers: { "dpop-nonce": "as-nonce-1" },
          };
    const provider = dpopClient();
    expect(await provider.handleChallenge(challenge())).toBe(true);
    expect(as.tokenCalls).toHaveLength(2);
    expect(decodeJwt(as.tokenCalls[0]?.dpop ?? "").nonce).toBeUndefined();
    expect(decodeJwt(as.tokenCalls[1]?.dpop ?? "").nonce).toBe("as-nonce-1");
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("DPoP at-1");
  });

  it("answers the MCP server's use_dpop_nonce with a retry carrying the nonce, once per nonce", async () => {
    const provider = dpopClient();
    const resource = new URL(as.resourceUrl);
    // As the transport does: ask for the header before each send, hand over each refusal.
    await provider.authorization(resource);
    await provider.handleChallenge(challenge());
    await provider.authorization(resource);
    const nonceChallenge = challenge({
      wwwAuthenticate: 'DPoP error="use_dpop_nonce", error_description="fresh nonce required"',
      dpopNonce: "rs-nonce-1",
      attempt: 2,
    });
    expect(await provider.handleChallenge(nonceChallenge)).toBe(true);
    const authorization = (await provider.authorization(resource)) as string;
    const proof = await provider.proof?.(resource, "POST", authorization);
    expect(decodeJwt(proof ?? "").nonce).toBe("rs-nonce-1");
    // The same nonce refused again is no reason to send the request once more.
    expect(await provider.handleChallenge({ ...nonceChallenge, attempt: 3 })).toBe(false);
    expect(as.tokenCalls).toHaveLength(1);
  });

  it("refreshes a DPoP-bound token with a proof by the same key", async () => {
    let now = 1_000_000;
    const provider = dpopClient(() => now);
    await provider.handleChallenge(challenge());
    now += 600_000;
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("DPoP at-2");
    const [grant, refresh] = as.tokenCalls;
    expect(refresh?.form.get("grant_type")).toBe("refresh_token");
    expect((await verified(refresh?.dpop)).jkt).toBe((await verified(grant?.dpop)).jkt);
  });
});
