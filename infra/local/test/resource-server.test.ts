import { Client } from "@roundtrip/sdk";
import { jwtVerifier } from "@roundtrip/sdk/resource-server";
import {
  publicKeyHmacToken,
  signAccessToken,
  unknownKeyToken,
  unsignedToken,
  validClaims,
} from "@roundtrip/test-support/forge";
import { callTool, principalFrom, type ToolReply } from "@roundtrip/test-support/wire";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  generateSigningKey,
  type LocalAuthServer,
  publicJwk,
  requestToken,
  type SigningKey,
  startLocalAuthServer,
} from "../src/index.js";
import { type ProtectedMcp, SCOPES, startProtectedMcp } from "./support/protected-mcp.js";

let mcp: ProtectedMcp;
let as: LocalAuthServer;
let asKey: SigningKey;
let otherResource: string;

beforeAll(async () => {
  mcp = await startProtectedMcp();
  otherResource = new URL("/other-mcp", mcp.url).href;
  asKey = await generateSigningKey();
  as = await startLocalAuthServer({ resource: [mcp.url, otherResource], signingKeys: [asKey] });
  mcp.protect(jwtVerifier({ issuer: as.issuer, audience: mcp.url }), as.issuer, {
    requiredScopes: ["mcp:tools"],
    toolScopes: { deploy: ["mcp:deploy"] },
  });
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

/** The call must be refused before any handler ran. */
async function refused(reply: Promise<ToolReply>): Promise<ToolReply> {
  const before = mcp.calls.length;
  const result = await reply;
  expect(mcp.calls.length).toBe(before);
  return result;
}

function expectInvalidToken(reply: ToolReply, description: RegExp): void {
  expect(reply.status).toBe(401);
  expect(reply.challenge?.scheme).toBe("Bearer");
  expect(reply.challenge?.params).toMatchObject({
    error: "invalid_token",
    resource_metadata: mcp.metadataUrl,
    scope: "mcp:tools",
  });
  expect(reply.challenge?.params.error_description).toMatch(description);
}

describe("JWT access tokens from a real authorization server", () => {
  it("lets a client-credentials token through and gives the handler the client's principal", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const principal = principalFrom(await callTool(mcp.url, "whoami", { token }));
    expect(principal).toEqual({
      clientId: "mcp-machine",
      issuer: as.issuer,
      subject: "mcp-machine",
      scopes: ["mcp:tools"],
      resource: mcp.url,
    });
  });

  it("serves the SDK client over HTTP with its bearer token", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const client = new Client(mcp.url, { http: { headers: { authorization: `Bearer ${token}` } } });
    const result = await client.callTool("whoami", {});
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ clientId: "mcp-machine", issuer: as.issuer });
  });

  it("lets alice's authorization-code token through with her as the subject", async () => {
    const { accessToken } = await as.authorizationCodeToken("alice", "mcp:tools");
    const principal = principalFrom(await callTool(mcp.url, "whoami", { token: accessToken }));
    expect(principal).toMatchObject({ clientId: "mcp-interactive", issuer: as.issuer, subject: "alice" });
  });

  it("tells two users of one client apart by subject", async () => {
    const alice = await as.authorizationCodeToken("alice", "mcp:tools");
    const bob = await as.authorizationCodeToken("bob", "mcp:tools");
    const seenAlice = principalFrom(await callTool(mcp.url, "whoami", { token: alice.accessToken }));
    const seenBob = principalFrom(await callTool(mcp.url, "whoami", { token: bob.accessToken }));
    expect(seenAlice.clientId).toBe(seenBob.clientId);
    expect([seenAlice.subject, seenBob.subject]).toEqual(["alice", "bob"]);
  });

  it("accepts a token it forged with the authorization server's key and valid claims (control for the cases below)", async () => {
    const token = await signAccessToken(asKey, validClaims(as.issuer, mcp.url));
    expect(principalFrom(await callTool(mcp.url, "whoami", { token }))).toMatchObject({ subject: "alice" });
  });
});

describe("refused with 401 and a challenge, before any handler runs", () => {
  it("a request without a token gets the challenge with the resource metadata and the scope, and no error code", async () => {
    const reply = await refused(callTool(mcp.url, "whoami"));
    expect(reply.status).toBe(401);
    expect(reply.challenge).toEqual({
      scheme: "Bearer",
      params: { scope: "mcp:tools", resource_metadata: mcp.metadataUrl },
    });
  });

  it("a real token the same authorization server issued for another resource", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools", { resource: otherResource });
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /not issued for this resource/);
  });

  it("a real token requested without the RFC 8707 resource parameter", async () => {
    const { accessToken } = await requestToken(
      as.tokenEndpoint,
      { grant_type: "client_credentials", scope: "mcp:tools" },
      { id: "mcp-machine", secret: "mcp-machine-secret" },
    );
    expectInvalidToken(
      await refused(callTool(mcp.url, "whoami", { token: accessToken })),
      /not a well-formed/,
    );
  });

  it("an expired token", async () => {
    const claims = { ...validClaims(as.issuer, mcp.url), exp: Math.floor(Date.now() / 1000) - 60 };
    const token = await signAccessToken(asKey, claims);
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /expired/);
  });

  it("an unsigned token (alg none)", async () => {
    const token = unsignedToken(validClaims(as.issuer, mcp.url), asKey.kid);
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /algorithm/);
  });

  it("an HS256 token keyed with the authorization server's public key", async () => {
    const token = await publicKeyHmacToken(publicJwk(asKey), validClaims(as.issuer, mcp.url), asKey.kid);
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /algorithm/);
  });

  it("a token signed with a key the authorization server does not publish", async () => {
    const token = await unknownKeyToken(validClaims(as.issuer, mcp.url));
    expectInvalidToken(
      await refused(callTool(mcp.url, "whoami", { token })),
      /key the authorization server does not publish/,
    );
  });

  it("a token naming another issuer, even when signed with the trusted key", async () => {
    const token = await signAccessToken(asKey, validClaims("http://127.0.0.1:1/impostor", mcp.url));
    expectInvalidToken(
      await refused(callTool(mcp.url, "whoami", { token })),
      /not issued by the authorization server/,
    );
  });

  it("a token for another audience, even when signed with the trusted key", async () => {
    const token = await signAccessToken(asKey, validClaims(as.issuer, "https://elsewhere.example/mcp"));
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /not issued for this resource/);
  });

  it("an ID-token-like JWT (typ JWT) with otherwise valid claims", async () => {
    const token = await new SignJWT(validClaims(as.issuer, mcp.url))
      .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: asKey.kid })
      .sign(asKey);
    expectInvalidToken(await refused(callTool(mcp.url, "whoami", { token })), /not an access token/);
  });

  it("a token in the query string, even a valid one (400 invalid_request)", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const reply = await refused(callTool(mcp.url, "whoami", { query: `?access_token=${token}` }));
    expect(reply.status).toBe(400);
    expect(reply.challenge?.params).toMatchObject({
      error: "invalid_request",
      resource_metadata: mcp.metadataUrl,
    });
  });
});

describe("scopes", () => {
  it("answers a token without the tool's scope with 403 naming every scope the call needs", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const reply = await refused(callTool(mcp.url, "deploy", { token }));
    expect(reply.status).toBe(403);
    expect(reply.challenge?.params).toMatchObject({
      error: "insufficient_scope",
      scope: "mcp:tools mcp:deploy",
      resource_metadata: mcp.metadataUrl,
    });
    expect(reply.challenge?.params.error_description).toMatch(/lacks 'mcp:deploy'/);
  });

  it("lets the stepped-up token (all challenged scopes) call the tool", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools mcp:deploy");
    const principal = principalFrom(await callTool(mcp.url, "deploy", { token }));
    expect(principal.scopes).toEqual(["mcp:tools", "mcp:deploy"]);
    expect(mcp.calls.at(-1)?.tool).toBe("deploy");
  });

  it("cannot be dodged by naming a harmless tool in Mcp-Name while the body calls the guarded one", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const reply = await refused(callTool(mcp.url, "deploy", { token, headerName: "whoami" }));
    expect(reply.status).toBe(400);
    expect(reply.body?.error).toMatchObject({ code: -32020 });
  });
});

describe("protected resource metadata (RFC 9728)", () => {
  const expected = () => ({
    resource: mcp.url,
    authorization_servers: [as.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Roundtrip protected fixture",
  });

  it("is served at the path-inserted well-known URL the challenge names", async () => {
    const challenge = (await callTool(mcp.url, "whoami")).challenge;
    const response = await fetch(challenge?.params.resource_metadata ?? "");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual(expected());
  });

  it("is served at the root well-known URL too", async () => {
    const response = await fetch(new URL("/.well-known/oauth-protected-resource", mcp.url));
    expect(await response.json()).toEqual(expected());
  });

  it("takes a client from the challenge to the authorization server's metadata, whose issuer matches", async () => {
    const challenge = (await callTool(mcp.url, "whoami")).challenge;
    const prm = (await (await fetch(challenge?.params.resource_metadata ?? "")).json()) as {
      authorization_servers: string[];
    };
    const issuer = prm.authorization_servers[0] ?? "";
    const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    expect(metadata.issuer).toBe(issuer);
  });
});
