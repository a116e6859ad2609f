import {
  type IntrospectionVerifierOptions,
  InvalidTokenError,
  introspectionVerifier,
} from "@roundtrip/sdk/resource-server";
import { callTool, principalFrom } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuthorization, type LocalAuthServer, startLocalAuthServer } from "../src/index.js";
import { type ProtectedMcp, startProtectedMcp } from "./support/protected-mcp.js";

const RESOURCE_SERVER = { clientId: "mcp-resource-server", clientSecret: "mcp-resource-server-secret" };

let mcp: ProtectedMcp;
let as: LocalAuthServer;
let otherResource: string;
let jwtResource: string;
let introspections = 0;

const countingFetch: typeof fetch = (input, init) => {
  introspections += 1;
  return fetch(input, init);
};

function verifierOptions(
  overrides: Partial<IntrospectionVerifierOptions> = {},
): IntrospectionVerifierOptions {
  return {
    endpoint: as.introspectionEndpoint,
    ...RESOURCE_SERVER,
    audience: mcp.url,
    issuer: as.issuer,
    fetch: countingFetch,
    ...overrides,
  };
}

beforeAll(async () => {
  mcp = await startProtectedMcp();
  otherResource = new URL("/other-mcp", mcp.url).href;
  jwtResource = new URL("/jwt-mcp", mcp.url).href;
  as = await startLocalAuthServer({ resource: jwtResource, opaqueResource: [mcp.url, otherResource] });
  mcp.protect(introspectionVerifier(verifierOptions()), as.issuer, {
    requiredScopes: ["mcp:tools"],
    toolScopes: { deploy: ["mcp:deploy"] },
  });
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

const opaqueToken = (scope = "mcp:tools", resource?: string) =>
  as.clientCredentialsToken("mcp-machine", scope, { resource: resource ?? mcp.url });

async function revoke(token: string): Promise<void> {
  const response = await fetch(`${as.issuer}/token/revocation`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization({ id: "mcp-machine", secret: "mcp-machine-secret" }),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(200);
}

describe("RFC 7662 introspection against the real authorization server", () => {
  it("lets an opaque client-credentials token through with the client and issuer from introspection", async () => {
    const token = await opaqueToken();
    expect(token).not.toContain(".");
    const principal = principalFrom(await callTool(mcp.url, "whoami", { token }));
    expect(principal).toMatchObject({
      clientId: "mcp-machine",
      issuer: as.issuer,
      scopes: ["mcp:tools"],
      resource: mcp.url,
    });
  });

  it("lets alice's opaque authorization-code token through with her as the subject", async () => {
    const { accessToken } = await as.authorizationCodeToken("alice", "mcp:tools", { resource: mcp.url });
    const principal = principalFrom(await callTool(mcp.url, "whoami", { token: accessToken }));
    expect(principal).toMatchObject({ clientId: "mcp-interactive", subject: "alice" });
  });

  it("reuses an active answer instead of asking again for the same token", async () => {
    const token = await opaqueToken();
    const before = introspections;
    principalFrom(await callTool(mcp.url, "whoami", { token }));
    principalFrom(await callTool(mcp.url, "whoami", { token }));
    expect(introspections - before).toBe(1);
  });

  it("refuses a revoked token once nothing is cached", async () => {
    const verifier = introspectionVerifier(verifierOptions({ cacheMaxSec: 0 }));
    const token = await opaqueToken();
    await expect(verifier.verify(token)).resolves.toMatchObject({ clientId: "mcp-machine" });
    await revoke(token);
    await expect(verifier.verify(token)).rejects.toThrow(/not active/);
  });

  it("answers 401 for a token issued for another resource", async () => {
    const token = await opaqueToken("mcp:tools", otherResource);
    const reply = await callTool(mcp.url, "whoami", { token });
    expect(reply.status).toBe(401);
    expect(reply.challenge?.params).toMatchObject({
      error: "invalid_token",
      resource_metadata: mcp.metadataUrl,
    });
    expect(reply.challenge?.params.error_description).toMatch(/not issued for this resource/);
  });

  it("answers 401 for a JWT the authorization server will not introspect, and for an unknown token", async () => {
    const jwt = await as.clientCredentialsToken("mcp-machine", "mcp:tools", { resource: jwtResource });
    const jwtReply = await callTool(mcp.url, "whoami", { token: jwt });
    expect(jwtReply.status).toBe(401);
    expect(jwtReply.challenge?.params.error_description).toMatch(/does not introspect/);
    const unknown = await callTool(mcp.url, "whoami", { token: "not-a-token-this-server-issued" });
    expect(unknown.status).toBe(401);
    expect(unknown.challenge?.params.error_description).toMatch(/not active/);
  });

  it("answers 403 with the step-up challenge for an opaque token without the tool's scope", async () => {
    const reply = await callTool(mcp.url, "deploy", { token: await opaqueToken() });
    expect(reply.status).toBe(403);
    expect(reply.challenge?.params).toMatchObject({
      error: "insufficient_scope",
      scope: "mcp:tools mcp:deploy",
    });
  });

  it("reports wrong resource-server credentials as a failure to check, not as a bad token", async () => {
    const verifier = introspectionVerifier(verifierOptions({ clientSecret: "wrong" }));
    const attempt = verifier.verify(await opaqueToken());
    await expect(attempt).rejects.toThrow(/check this resource server's clientId and clientSecret/);
    await expect(attempt).rejects.not.toBeInstanceOf(InvalidTokenError);
  });
});
