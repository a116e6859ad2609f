import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { mcpFastify } from "@roundtrip/sdk/fastify";
import {
  bearerAuth,
  jwtVerifier,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from "@roundtrip/sdk/resource-server";
import { protectedResourceMetadataFastify } from "@roundtrip/sdk/resource-server/fastify";
import { Server } from "@roundtrip/sdk/server";
import { callTool, principalFrom } from "@roundtrip/test-support/wire";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalAuthServer, startLocalAuthServer } from "../src/index.js";

let app: FastifyInstance;
let http: HttpServer;
let as: LocalAuthServer;
let url: string;
let handled = 0;

beforeAll(async () => {
  // The canonical URI includes the port, and both the authorization server and the plugins need it before
  // Fastify is ready; so the Node server listens first and Fastify is handed it through serverFactory.
  let route: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  http = createServer((req, res) => (route ? route(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  as = await startLocalAuthServer({ resource: url });

  const server = new Server({ name: "fastify-fixture", version: "0.0.0" });
  server.onCallTool((ctx) => {
    handled += 1;
    const principal = { clientId: ctx.auth?.clientId, subject: ctx.auth?.subject };
    return { content: [{ type: "text", text: JSON.stringify(principal) }] };
  });
  app = Fastify({
    serverFactory: (handler) => {
      route = handler;
      return http;
    },
  });
  await app.register(mcpFastify, {
    server,
    path: "/mcp",
    authenticate: bearerAuth({
      verifier: jwtVerifier({ issuer: as.issuer, audience: url }),
      resourceMetadataUrl: protectedResourceMetadataUrl(url),
      requiredScopes: ["mcp:tools"],
    }),
  });
  await app.register(protectedResourceMetadataFastify, {
    metadata: protectedResourceMetadata({
      resource: url,
      authorizationServers: [as.issuer],
      scopesSupported: ["mcp:tools"],
    }),
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await as?.close();
});

describe("mcpFastify with bearerAuth and the metadata plugin", () => {
  it("challenges a request without a token, pointing at the metadata it serves", async () => {
    const reply = await callTool(url, "whoami");
    expect(reply.status).toBe(401);
    expect(handled).toBe(0);
    const metadataUrl = reply.challenge?.params.resource_metadata ?? "";
    expect(metadataUrl).toBe(protectedResourceMetadataUrl(url));
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toEqual({
      resource: url,
      authorization_servers: [as.issuer],
      scopes_supported: ["mcp:tools"],
      bearer_methods_supported: ["header"],
    });
    const root = await fetch(new URL("/.well-known/oauth-protected-resource", url));
    expect(await root.json()).toEqual(metadata);
  });

  it("serves a tool call made with a real token", async () => {
    const { accessToken } = await as.authorizationCodeToken("bob", "mcp:tools");
    expect(principalFrom(await callTool(url, "whoami", { token: accessToken }))).toEqual({
      clientId: "mcp-interactive",
      subject: "bob",
    });
    expect(handled).toBe(1);
  });

  it("answers HEAD without a body and other methods with 405 on the metadata paths", async () => {
    const metadataUrl = protectedResourceMetadataUrl(url);
    const head = await fetch(metadataUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(metadataUrl, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});
