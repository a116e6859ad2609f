import { createHash } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import { Server } from "../index.js";
import { bearerAuth } from "./bearer-auth.js";
import { InvalidTokenError } from "./errors.js";
import type { TokenVerifier } from "./token-verifier.js";

const METADATA = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
/** The configured resource URL; requests reach 127.0.0.1, whose Host a proof must not be compared with. */
const RESOURCE = "https://mcp.example/mcp";

let key: Awaited<ReturnType<typeof generateKeyPair>>;
let jkt: string;

/** `bound-token` is bound to `key`; `plain-token` is a plain bearer token. */
const verifier: TokenVerifier = {
  async verify(token) {
    if (token === "bound-token") return { token, clientId: "c", scopes: [], claims: { cnf: { jkt } } };
    if (token === "plain-token") return { token, clientId: "c", scopes: [], claims: {} };
    throw new InvalidTokenError("The access token is unknown");
  },
};

const servers: RunningHttpServer[] = [];
let optional: RunningHttpServer;
let required: RunningHttpServer;

beforeAll(async () => {
  key = await generateKeyPair("ES256");
  jkt = await calculateJwkThumbprint(await exportJWK(key.publicKey), "sha256");
  const start = async (requireDpop: boolean) => {
    const server = new Server({ name: "dpop-test", version: "0.0.0" }, { logger: silentLogger });
    server.onListTools(() => ({ tools: [] }));
    const running = await startHttpServer(server, {
      authenticate: bearerAuth({
        verifier,
        resourceMetadataUrl: METADATA,
        dpop: { resourceUrl: RESOURCE, required: requireDpop, algorithms: ["ES256", "EdDSA"] },
      }),
    });
    servers.push(running);
    return running;
  };
  optional = await start(false);
  required = await start(true);
});
afterAll(() => Promise.all(servers.map((server) => server.close())));

async function proofFor(token: string, nonce?: string): Promise<string> {
  return new SignJWT({
    ...(nonce === undefined ? {} : { nonce }),
    htm: "POST",
    htu: RESOURCE,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    ath: createHash("sha256").update(token).digest("base64url"),
  })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(key.publicKey) })
    .sign(key.privateKey);
}

async function send(target: RunningHttpServer, headers: Record<string, string>) {
  const request = rpcRequest("tools/list");
  const response = await fetch(target.url, {
    method: "POST",
    headers: { ...mcpHeaders(request), ...headers },
    body: JSON.stringify(request),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get("www-authenticate") ?? "" };
}

describe("bearerAuth with DPoP", () => {
  it("accepts a bound token with a proof by its key, checked against the configured URL", async () => {
    const reply = await send(optional, {
      authorization: "DPoP bound-token",
      dpop: await proofFor("bound-token"),
    });
    expect(reply.status).toBe(200);
  });

  it("challenges with both schemes, and with DPoP only when DPoP is required", async () => {
    expect((await send(optional, {})).challenge).toBe(
      `Bearer resource_metadata="${METADATA}", DPoP resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
    expect((await send(required, {})).challenge).toBe(
      `DPoP resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it("refuses a bound token sent as Bearer (downgrade), naming the DPoP scheme", async () => {
    const reply = await send(optional, { authorization: "Bearer bound-token" });
    expect(reply.status).toBe(401);
    expect(reply.challenge).toMatch(
      /^Bearer error="invalid_token", .*error_description="The access token is DPoP-bound/,
    );
    expect(reply.challenge).toContain(", DPoP resource_metadata=");
  });

  it("refuses a DPoP token without a proof, or with a replayed one, as invalid_dpop_proof", async () => {
    const missing = await send(optional, { authorization: "DPoP bound-token" });
    expect(missing.status).toBe(401);
    expect(missing.challenge).toMatch(
      /DPoP error="invalid_dpop_proof", .*algs="ES256 EdDSA", error_description="A DPoP access token needs/,
    );
    const proof = await proofFor("bound-token");
    expect((await send(optional, { authorization: "DPoP bound-token", dpop: proof })).status).toBe(200);
    const replayed = await send(optional, { authorization: "DPoP bound-token", dpop: proof });
    expect(replayed.status).toBe(401);
    expect(replayed.challenge).toMatch(/DPoP error="invalid_dpop_proof", .*replayed/);
  });

  it("accepts the same request checked twice, as a host does once the body names a tool", async () => {
    const hook = bearerAuth({ verifier, resourceMetadataUrl: METADATA, dpop: { resourceUrl: RESOURCE } });
    const head = {
      method: "POST",
      url: "/mcp",
      headers: { authorization: "DPoP bound-token", dpop: await proofFor("bound-token") },
    };
    await hook(head);
    await expect(hook(head)).resolves.toMatchObject({ clientId: "c" });
    await expect(hook({ ...head })).rejects.toMatchObject({ status: 401 });
  });

  it("refuses a bound token sent as Bearer even where DPoP is not configured", async () => {
    const hook = bearerAuth({ verifier, resourceMetadataUrl: METADATA });
    const head = { method: "POST", url: "/mcp", headers: { authorization: "Bearer bound-token" } };
    await expect(hook(head)).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/DPoP-bound/),
    });
    await expect(hook({ ...head, headers: { authorization: "Bearer plain-token" } })).resolves.toBeDefined();
  });

  it("answers a proof without the server's nonce with use_dpop_nonce and a DPoP-Nonce to retry with", async () => {
    const hook = bearerAuth({
      verifier,
      resourceMetadataUrl: METADATA,
      dpop: { resourceUrl: RESOURCE, nonce: { secret: "a development nonce secret of 32+ bytes" } },
    });
    const head = async (nonce?: string) => ({
      method: "POST",
      url: "/mcp",
      headers: { authorization: "DPoP bound-token", dpop: await proofFor("bound-token", nonce) },
    });
    const refusal = await hook(await head()).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ status: 401 });
    const headers = (refusal as { headers: Record<string, string> }).headers;
    expect(headers["www-authenticate"]).toMatch(/DPoP error="use_dpop_nonce"/);
    const nonce = headers["dpop-nonce"];
    expect(nonce).toMatch(/^\d+\./);
    await expect(hook(await head(nonce))).resolves.toMatchObject({ clientId: "c" });
  });

  it("refuses an unbound token presented with DPoP", async () => {
    const reply = await send(optional, {
      authorization: "DPoP plain-token",
      dpop: await proofFor("plain-token"),
    });
    expect(reply.status).toBe(401);
    expect(reply.challenge).toMatch(/DPoP error="invalid_token", .*not DPoP-bound/);
  });

  it("refuses any bearer token when DPoP is required", async () => {
    const reply = await send(required, { authorization: "Bearer plain-token" });
    expect(reply.status).toBe(401);
    expect(reply.challenge).toMatch(/^DPoP error="invalid_token", .*accepts only DPoP-bound/);
    expect(reply.challenge).not.toContain("Bearer");
    expect(
      (await send(required, { authorization: "DPoP bound-token", dpop: await proofFor("bound-token") }))
        .status,
    ).toBe(200);
  });
});
