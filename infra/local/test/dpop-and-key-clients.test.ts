import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVELOPMENT_CLIENT_KEY, type LocalAuthServer, startLocalAuthServer } from "../src/index.js";

const RESOURCE = "https://mcp.local.test/mcp";
let as: LocalAuthServer;

beforeAll(async () => {
  as = await startLocalAuthServer({ resource: RESOURCE });
});
afterAll(() => as?.close());

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

async function tokenProof(key: KeyPair): Promise<string> {
  return new SignJWT({
    htm: "POST",
    htu: as.tokenEndpoint,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(key.publicKey) })
    .sign(key.privateKey);
}

async function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(as.tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: RESOURCE, ...form }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const dpopClientAuth = `Basic ${Buffer.from("mcp-machine-dpop:mcp-machine-dpop-secret").toString("base64")}`;

async function clientAssertion(sign: Parameters<SignJWT["sign"]>[0], kid: string): Promise<string> {
  return new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer("mcp-machine-key")
    .setSubject("mcp-machine-key")
    .setAudience(as.issuer)
    .setIssuedAt()
    .setExpirationTime("60s")
    .sign(sign);
}

describe("the DPoP-bound client", () => {
  it("gets a DPoP token whose cnf.jkt is its proof key's thumbprint", async () => {
    const key = await generateKeyPair("ES256");
    const reply = await tokenRequest(
      { scope: "mcp:tools" },
      { authorization: dpopClientAuth, dpop: await tokenProof(key) },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.token_type).toBe("DPoP");
    const claims = decodeJwt(String(reply.body.access_token));
    expect(claims.cnf).toEqual({
      jkt: await calculateJwkThumbprint(await exportJWK(key.publicKey), "sha256"),
    });
    expect(claims.client_id).toBe("mcp-machine-dpop");
  });

  it("is refused a token without a DPoP proof", async () => {
    const reply = await tokenRequest({ scope: "mcp:tools" }, { authorization: dpopClientAuth });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the private_key_jwt client", () => {
  it("gets a token with an assertion signed by its registered key", async () => {
    const key = await importJWK(DEVELOPMENT_CLIENT_KEY, "ES256");
    const reply = await tokenRequest({
      scope: "mcp:tools",
      client_id: "mcp-machine-key",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: await clientAssertion(key, DEVELOPMENT_CLIENT_KEY.kid),
    });
    expect(reply.status).toBe(200);
    expect(decodeJwt(String(reply.body.access_token))).toMatchObject({
      client_id: "mcp-machine-key",
      aud: RESOURCE,
    });
  });

  it("is refused with an assertion signed by another key", async () => {
    const other = await generateKeyPair("ES256");
    const reply = await tokenRequest({
      scope: "mcp:tools",
      client_id: "mcp-machine-key",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: await clientAssertion(other.privateKey, DEVELOPMENT_CLIENT_KEY.kid),
    });
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe("invalid_client");
  });
});
