import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let introspection: Server;
let app: RunningServer;
const held: ServerResponse[] = [];
// 73 requests reach the gate one by one on a machine that may be busy with other suites.
const SETTLES = { timeout: 30_000, interval: 50 };
let holding = true;

const refuse = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ active: false }));

beforeAll(async () => {
  as = await startAuthorizationServer();
  // An introspection endpoint that has gone slow: it answers the readiness probe, and holds every token.
  introspection = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      const token = new URLSearchParams(body).get("token") ?? "";
      if (holding && token.startsWith("held-")) held.push(res);
      else refuse(res);
    });
  });
  await new Promise<void>((resolve) => introspection.listen(0, "127.0.0.1", resolve));
  const port = (introspection.address() as AddressInfo).port;
  app = await startServer(
    serverEnvironment(as, {
      OAUTH_INTROSPECTION_URL: `http://127.0.0.1:${port}/introspect`,
      OAUTH_INTROSPECTION_CLIENT_ID: "roundtrip-rs",
      OAUTH_INTROSPECTION_CLIENT_SECRET: "roundtrip-rs-secret",
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

describe("introspection at capacity", () => {
  it("answers 503 with Retry-After beyond 8 calls in flight and 64 waiting, without calling the authorization server unreachable", async () => {
    const settled: Array<{ status: number; retryAfter: string | null }> = [];
    const requests = Array.from({ length: 73 }, async (_, i) => {
      const response = await discoverWith(`held-${i}`);
      await response.body?.cancel();
      settled.push({ status: response.status, retryAfter: response.headers.get("retry-after") });
    });
    await vi.waitFor(() => {
      expect(held.length).toBe(8);
      expect(settled).toEqual([{ status: 503, retryAfter: "1" }]);
    }, SETTLES);
    const ready = await fetch(`${app.origin}/readyz`);
    expect(ready.status).toBe(200);

    holding = false;
    for (const res of held.splice(0)) refuse(res);
    await Promise.all(requests);
    expect(settled.filter((reply) => reply.status === 401)).toHaveLength(72);
  });
});
