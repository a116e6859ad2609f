import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from "../../protocol/auth/resource-metadata.js";
import { bearerAuth } from "../../server/auth/bearer-auth.js";
import { jwtVerifier } from "../../server/auth/jwt-verifier.js";
import { protectedResourceMetadataHandler } from "../../server/auth/resource-metadata-handler.js";
import { type LocalSigner, localSigner } from "../../server/auth/test-support/issuer-server.js";
import { McpServer } from "../../server/index.js";
import { createNodeHandler } from "../../server/transport/http-server.js";
import { Client } from "../client.js";
import { HttpStatusError } from "../transport/http-client.js";
import { oauthClientProvider } from "./oauth-client-provider.js";
import {
  type ScriptedAuthorizationServer,
  startScriptedAuthorizationServer,
} from "./test-support/scripted-authorization-server.js";

/**
 * The SDK's OAuth client against the SDK's own resource server: RFC 9068 JWTs from a scripted
 * authorization server, verified by jwtVerifier, with per-tool scopes enforced by bearerAuth.
 */

let as: ScriptedAuthorizationServer;
let signer: LocalSigner;
let http: HttpServer;
let mcpUrl: string;

beforeEach(async () => {
  as = await startScriptedAuthorizationServer();
  signer = await localSigner();
  as.server.json("/jwks", { keys: [signer.publicJwk] });
  as.metadata.jwks_uri = `${as.origin}/jwks`;
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  mcpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

  const mcp = new McpServer({ name: "protected", version: "1.0.0" });
  mcp.tool(
    "whoami",
    { input: z.object({}) },
    (_args, ctx) => `${ctx.auth?.clientId} ${ctx.auth?.scopes.join(",")}`,
  );
  mcp.tool("deploy", { input: z.object({}) }, () => "deployed");
  const metadata = protectedResourceMetadataHandler(
    protectedResourceMetadata({
      resource: mcpUrl,
      authorizationServers: [as.issuer],
      scopesSupported: ["mcp:read"],
    }),
  );
  const handle = createNodeHandler(mcp, {
    authenticate: bearerAuth({
      verifier: jwtVerifier({ issuer: as.issuer, audience: mcpUrl }),
      resourceMetadataUrl: protectedResourceMetadataUrl(mcpUrl),
      requiredScopes: ["mcp:read"],
      toolScopes: { deploy: ["mcp:deploy"] },
    }),
  });
  http.on("request", (req, res) => {
    if (!metadata(req, res)) void handle(req, res);
  });
});

afterEach(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await as.close();
});

describe("oauthClientProvider with a Roundtrip resource server", () => {
  it("gets a client_credentials token for the resource, then steps up for a tool that needs more scope", async () => {
    // Tokens are signed ahead of the request because the scripted endpoint answers synchronously.
    const now = Math.floor(Date.now() / 1000);
    const sign = (scope: string) =>
      signer.sign({
        iss: as.issuer,
        aud: mcpUrl,
        sub: "svc",
        client_id: "svc",
        scope,
        iat: now,
        exp: now + 120,
      });
    const byScope = new Map([
      ["mcp:read", await sign("mcp:read")],
      ["mcp:read mcp:deploy", await sign("mcp:read mcp:deploy")],
    ]);
    as.onToken = ({ form }) => {
      const scope = form.get("scope") ?? "";
      return {
        body: { token_type: "Bearer", expires_in: 120, scope, access_token: byScope.get(scope) ?? "unknown" },
      };
    };

    const auth = oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "s",
      clientIssuer: as.issuer,
    });
    const client = new Client(mcpUrl, { http: { auth } });
    const whoami = await client.callTool("whoami", {});
    expect(whoami.content[0]).toMatchObject({ text: "svc mcp:read" });
    expect(await client.callTool("deploy", {})).toMatchObject({ content: [{ text: "deployed" }] });
    expect(as.tokenCalls.map((call) => [call.form.get("scope"), call.form.get("resource")])).toEqual([
      ["mcp:read", mcpUrl],
      ["mcp:read mcp:deploy", mcpUrl],
    ]);
    await client.close();
  });

  it("surfaces the refusal when the authorization server will not grant the scope a tool needs", async () => {
    const now = Math.floor(Date.now() / 1000);
    const readOnly = await signer.sign({
      iss: as.issuer,
      aud: mcpUrl,
      sub: "svc",
      client_id: "svc",
      scope: "mcp:read",
      iat: now,
      exp: now + 120,
    });
    as.onToken = () => ({
      body: { token_type: "Bearer", expires_in: 120, scope: "mcp:read", access_token: readOnly },
    });
    const client = new Client(mcpUrl, {
      http: {
        auth: oauthClientProvider({
          grant: "client_credentials",
          clientId: "svc",
          clientSecret: "s",
          clientIssuer: as.issuer,
        }),
      },
    });
    const failure = await client.callTool("deploy", {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpStatusError);
    expect((failure as HttpStatusError).status).toBe(403);
    // One token for the first 401, then the default two step-ups, then the refusal reaches the caller.
    expect(as.tokenCalls.map((call) => call.form.get("scope"))).toEqual([
      "mcp:read",
      "mcp:read mcp:deploy",
      "mcp:read mcp:deploy",
    ]);
    await client.close();
  });
});
