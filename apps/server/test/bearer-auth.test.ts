import { generateSigningKey, type LocalAuthServer, publicJwk, type SigningKey } from "@roundtrip/local-auth";
import {
  publicKeyHmacToken,
  signAccessToken,
  unknownKeyToken,
  unsignedToken,
  validClaims,
} from "@roundtrip/test-support/forge";
import { callTool, type ToolReply } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OTHER_RESOURCE,
  PUBLIC_URL,
  serverEnvironment,
  startAuthorizationServer,
} from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const METADATA_URL = "https://mcp.roundtrip.test/.well-known/oauth-protected-resource/mcp";

let as: LocalAuthServer;
let asKey: SigningKey;
let app: RunningServer;
const watch = new LeakWatch();

beforeAll(async () => {
  asKey = await generateSigningKey();
  as = await startAuthorizationServer([asKey]);
  app = await startServer(serverEnvironment(as));
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

/** Sends `token` (remembered for the log check) on a tools/call and insists no handler ran. */
async function refused(tool: string, token: string | undefined): Promise<ToolReply> {
  watch.remember("refused token", token);
  const before = app.dispatched.length;
  const reply = await callTool(app.url, tool, token === undefined ? {} : { token });
  expect(app.dispatched.length).toBe(before);
  return reply;
}

function expectInvalidToken(reply: ToolReply, description: RegExp): void {
  expect(reply.status).toBe(401);
  expect(reply.challenge?.scheme).toBe("Bearer");
  expect(reply.challenge?.params).toMatchObject({
    error: "invalid_token",
    resource_metadata: METADATA_URL,
    scope: "mcp:tools",
  });
  expect(reply.challenge?.params.error_description).toMatch(description);
}

const claims = () => validClaims(as.issuer, PUBLIC_URL);

describe("OAuth 2.1 resource server", () => {
  it("serves its RFC 9728 metadata at the path-inserted and the root well-known URL", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const response = await fetch(`${app.origin}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: PUBLIC_URL,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp:tools"],
        bearer_methods_supported: ["header"],
        resource_name: "roundtrip",
      });
    }
  });

  it("answers a request without a token with 401 and a challenge naming the metadata and scope", async () => {
    const reply = await refused("list_workspace", undefined);
    expect(reply.status).toBe(401);
    expect(reply.challenge).toEqual({
      scheme: "Bearer",
      params: { scope: "mcp:tools", resource_metadata: METADATA_URL },
    });
  });

  it("challenges for every scope the tool needs when the token is missing", async () => {
    const reply = await refused("deploy", undefined);
    expect(reply.challenge?.params.scope).toBe("mcp:tools mcp:deploy");
  });

  it("refuses a real token issued for another resource", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools", { resource: OTHER_RESOURCE });
    expectInvalidToken(await refused("list_workspace", token), /audience|resource/i);
  });

  it("refuses an expired token signed by the real issuer key", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signAccessToken(asKey, { ...claims(), iat: now - 900, exp: now - 600 });
    expectInvalidToken(await refused("list_workspace", token), /expired/i);
  });

  it("refuses an unsigned token (alg none)", async () => {
    expectInvalidToken(await refused("list_workspace", unsignedToken(claims(), asKey.kid)), /./);
  });

  it("refuses an HS256 token keyed with the issuer's public key", async () => {
    const token = await publicKeyHmacToken(publicJwk(asKey), claims(), asKey.kid);
    expectInvalidToken(await refused("list_workspace", token), /./);
  });

  it("refuses a token signed with a key the issuer never published (unknown kid)", async () => {
    expectInvalidToken(await refused("list_workspace", await unknownKeyToken(claims())), /./);
  });

  it("refuses a token from another issuer, even signed with the real key", async () => {
    const token = await signAccessToken(asKey, { ...claims(), iss: "https://impostor.roundtrip.test" });
    expectInvalidToken(await refused("list_workspace", token), /iss/i);
  });

  it("answers a token without the deploy scope with 403 insufficient_scope naming all needed scopes", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const reply = await refused("deploy", token);
    expect(reply.status).toBe(403);
    expect(reply.challenge?.params).toMatchObject({
      error: "insufficient_scope",
      scope: "mcp:tools mcp:deploy",
      resource_metadata: METADATA_URL,
    });
  });

  it("lets the stepped-up token through to the handler", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools mcp:deploy");
    const before = app.dispatched.length;
    const client = mcpClient(app.url, token, watch, { onElicit: () => ({ action: "decline" }) });

    const result = await client.callTool("deploy", { service: "api", env: "staging" });

    expect(result.isError).not.toBe(true);
    expect(app.dispatched.slice(before)).toContain("tools/call");
  });

  it("never logs a refused or accepted token", () => {
    expect(watch.size).toBeGreaterThanOrEqual(8);
    expect(app.logs.lines().some((line) => (line.res as { statusCode?: number })?.statusCode === 401)).toBe(
      true,
    );
    expect(watch.leaksIn(app.logs.text())).toEqual([]);
  });
});
