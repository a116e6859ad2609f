import type { LocalAuthServer } from "@roundtrip/local-auth";
import { Client } from "@roundtrip/sdk";
import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * Enterprise-managed authorization end to end, with real grants: alice signs in to the local
 * authorization server as her IdP, the SDK's OAuth client trades her ID token for an ID-JAG and the
 * ID-JAG for an access token, and the reference server accepts that token like any other.
 */

let as: LocalAuthServer;
let app: RunningServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
});
afterAll(async () => {
  await app?.close();
  await as?.close();
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
