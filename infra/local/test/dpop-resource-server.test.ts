import { Client } from "@roundtrip/sdk";
import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { jwtVerifier } from "@roundtrip/sdk/resource-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalAuthServer, startLocalAuthServer } from "../src/index.js";
import { type ProtectedMcp, startProtectedMcp } from "./support/protected-mcp.js";

let mcp: ProtectedMcp;
let as: LocalAuthServer;
/** Every DPoP-Nonce the resource server handed out. */
const noncesSent: string[] = [];

beforeAll(async () => {
  mcp = await startProtectedMcp();
  as = await startLocalAuthServer({ resource: mcp.url });
  mcp.protect(jwtVerifier({ issuer: as.issuer, audience: mcp.url }), as.issuer, {
    requiredScopes: ["mcp:tools"],
    dpop: {
      resourceUrl: mcp.url,
      required: true,
      nonce: { secret: "the nonce secret of this test, 32 bytes or more" },
    },
  });
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

const watching: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const nonce = response.headers.get("dpop-nonce");
  if (nonce !== null) noncesSent.push(nonce);
  return response;
};

describe("an SDK server requiring DPoP with nonces, and the SDK's OAuth client", () => {
  it("signs the DPoP-bound client in: the first proof is asked for a nonce, the retry carries it", async () => {
    const client = new Client(mcp.url, {
      logger: silentLogger,
      http: {
        fetch: watching,
        auth: oauthClientProvider({
          grant: "client_credentials",
          clientId: "mcp-machine-dpop",
          clientSecret: "mcp-machine-dpop-secret",
          clientIssuer: as.issuer,
          scope: "mcp:tools",
          dpop: true,
        }),
      },
    });
    const result = await client.callTool("whoami", {});
    expect(result.isError).not.toBe(true);
    expect(mcp.calls.at(-1)?.auth?.clientId).toBe("mcp-machine-dpop");
    expect(noncesSent.length).toBeGreaterThan(0);
    await client.close();
  });
});
