import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalAuthServer, startLocalAuthServer } from "@roundtrip/local-auth";
import { Client } from "@roundtrip/sdk";
import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, serverEnvironment } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * Sign-in without a browser end to end, with real grants: alice signs in to the local authorization
 * server as her IdP, the SDK's OAuth client trades her ID token for an ID-JAG and the ID-JAG for an
 * access token; a CI workload presents its platform's token from a file. The reference server accepts
 * both tokens like any other.
 */

const WORKLOAD_ISSUER = "https://ci.roundtrip.test";
const workloadKeys = await generateKeyPair("ES256");

let as: LocalAuthServer;
let app: RunningServer;
let folder: string;

beforeAll(async () => {
  const jwk = { ...(await exportJWK(workloadKeys.publicKey)), alg: "ES256" };
  as = await startLocalAuthServer({
    resource: PUBLIC_URL,
    workloadIssuers: [{ issuer: WORKLOAD_ISSUER, jwks: [jwk] }],
  });
  app = await startServer(serverEnvironment(as));
  folder = await mkdtemp(join(tmpdir(), "roundtrip-workload-"));
});
afterAll(async () => {
  await app?.close();
  await as?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The load balancer of these tests: PUBLIC_URL's origin reaches the instance, anything else goes as is. */
function recordingRoute(tokens: string[]): typeof fetch {
  const publicOrigin = new URL(PUBLIC_URL).origin;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const target = url.origin === publicOrigin ? new URL(`${url.pathname}${url.search}`, app.origin) : url;
    const response = await fetch(target, init);
    if (target.href === as.tokenEndpoint && response.ok) {
      tokens.push(((await response.clone().json()) as { access_token: string }).access_token);
    }
    return response;
  };
}

describe("reference server, enterprise sign-in with an ID-JAG", () => {
  it("accepts the access token the identity assertion grant obtained, for the IdP's user", async () => {
    const { idToken } = await as.authorizationCodeToken("alice", "openid mcp:tools");
    const issued: string[] = [];
    const fetch = recordingRoute(issued);
    const client = new Client(PUBLIC_URL, {
      logger: silentLogger,
      http: {
        fetch,
        auth: oauthClientProvider({
          grant: "identity_assertion",
          clientId: "mcp-enterprise",
          clientSecret: "mcp-enterprise-secret",
          clientIssuer: as.issuer,
          scope: "mcp:tools",
          identityAssertion: {
            idpIssuer: as.issuer,
            idpClientId: "mcp-interactive",
            idToken: () => idToken as string,
          },
          fetch,
        }),
      },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("deploy");
    } finally {
      await client.close();
    }
    // Two token requests: the exchange at the IdP for the ID-JAG, then the JWT bearer grant.
    expect(issued).toHaveLength(2);
    expect(decodeJwt(issued[0] as string)).toMatchObject({
      client_id: "mcp-enterprise",
      resource: PUBLIC_URL,
    });
    expect(decodeJwt(issued[1] as string)).toMatchObject({
      iss: as.issuer,
      aud: PUBLIC_URL,
      sub: "alice",
      client_id: "mcp-enterprise",
      scope: "mcp:tools",
    });
  });
});

describe("reference server, workload identity", () => {
  it("accepts the access token a workload got for its platform's identity token, read from a file", async () => {
    const tokenFile = join(folder, "token");
    const workloadToken = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer(WORKLOAD_ISSUER)
      .setSubject("repo:roundtrip/nightly")
      .setAudience(as.issuer)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(workloadKeys.privateKey);
    await writeFile(tokenFile, `${workloadToken}\n`);
    const issued: string[] = [];
    const fetch = recordingRoute(issued);
    const client = new Client(PUBLIC_URL, {
      logger: silentLogger,
      http: {
        fetch,
        auth: oauthClientProvider({
          grant: "workload_identity",
          clientId: "mcp-workload",
          clientIssuer: as.issuer,
          tokenEndpointAuthMethod: "none",
          scope: "mcp:tools",
          workloadIdentity: { token: { file: tokenFile } },
          fetch,
        }),
      },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(issued).toHaveLength(1);
    expect(decodeJwt(issued[0] as string)).toMatchObject({
      aud: PUBLIC_URL,
      sub: "repo:roundtrip/nightly",
      client_id: "mcp-workload",
    });
  });
});
