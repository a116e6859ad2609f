import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let introspection: Server;
let introspectionUrl: string;
let introspectionCalls = 0;
let app: RunningServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
  // The authorization server's introspection endpoint as a flood would meet it: every token unknown.
  introspection = createServer((req, res) => {
    introspectionCalls += 1;
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ active: false }));
  });
  await new Promise<void>((resolve) => introspection.listen(0, "127.0.0.1", resolve));
  introspectionUrl = `http://127.0.0.1:${(introspection.address() as AddressInfo).port}/introspect`;
  app = await startServer(
    serverEnvironment(as, {
      OAUTH_INTROSPECTION_URL: introspectionUrl,
      OAUTH_INTROSPECTION_CLIENT_ID: "roundtrip-rs",
      OAUTH_INTROSPECTION_CLIENT_SECRET: "roundtrip-rs-secret",
      RATE_LIMIT_MAX: "1000",
      RATE_LIMIT_ADDRESS_MAX: "5",
      RATE_LIMIT_WINDOW_MS: "600000",
    }),
  );
});

afterAll(async () => {
  await app?.close();
  introspection?.closeAllConnections();
  await new Promise<void>((resolve) => introspection?.close(() => resolve()));
  await as?.close();
});

function discoverWith(token: string): Promise<Response> {
  return fetch(app.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}

describe("a flood of bogus tokens from one address", () => {
  it("is refused per address before any token is verified, so it costs the authorization server only the first few calls", async () => {
    // The readiness probe has already reached the endpoint; only the flood's own calls count here.
    const before = introspectionCalls;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const response = await discoverWith(`bogus-token-${i}`);
      await response.body?.cancel();
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    expect(introspectionCalls - before).toBe(5);
  });
});
