import type { LocalAuthServer } from "@roundtrip/local-auth";
import { callTool } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const APP_ORIGIN = "https://console.roundtrip.test";

let as: LocalAuthServer;
let app: RunningServer;
let limited: RunningServer;
let alice: string;
let bob: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as, { CORS_ORIGINS: APP_ORIGIN, MAX_BODY_BYTES: "2048" }));
  limited = await startServer(serverEnvironment(as, { RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_MS: "600000" }));
  alice = (await as.authorizationCodeToken("alice", "mcp:tools")).accessToken;
  bob = (await as.authorizationCodeToken("bob", "mcp:tools")).accessToken;
  watch.remember("alice's token", alice);
  watch.remember("bob's token", bob);
});

afterAll(async () => {
  await limited?.close();
  await app?.close();
  await as?.close();
});

/** A bare server/discover POST with the protocol headers and whatever else is given. */
function discover(headers: Record<string, string>, body?: string, url = app.url): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
      ...headers,
    },
    body:
      body ??
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "operations-test", version: "0.0.0" },
          },
        },
      }),
  });
}

describe("health and readiness", () => {
  it("answers /healthz and, with keys loaded, /readyz", async () => {
    const health = await fetch(`${app.origin}/healthz`);
    const ready = await fetch(`${app.origin}/readyz`);
    expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ready", sharedState: "process" }]);
  });

  it("warns that ephemeral keys do not survive a restart or reach other instances", () => {
    const warning = app.logs.lines().find((line) => line.keySource === "ephemeral");
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toMatch(/restart.*other instance/);
  });
});

describe("request ids", () => {
  it("echoes a plain incoming id on the MCP response and logs under it", async () => {
    const response = await discover({ authorization: `Bearer ${alice}`, "x-request-id": "trace-42.a" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("trace-42.a");
    expect(app.logs.lines().some((line) => line.reqId === "trace-42.a")).toBe(true);
  });

  it("replaces an id that could forge log content", async () => {
    const response = await discover({ authorization: `Bearer ${alice}`, "x-request-id": 'x" injected' });
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("browser clients", () => {
  it("answers a preflight from an allowed origin, exposing the challenge header", async () => {
    const response = await fetch(app.url, {
      method: "OPTIONS",
      headers: {
        origin: APP_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, dpop, mcp-method, mcp-param-region",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(response.headers.get("access-control-allow-headers")).toContain("mcp-param-region");
    expect(response.headers.get("access-control-allow-headers")).toContain("dpop");
  });

  it("gives a preflight from another origin no CORS grant", async () => {
    const response = await fetch(app.url, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("serves an allowed origin with CORS headers on the MCP response itself", async () => {
    const response = await discover({ authorization: `Bearer ${bob}`, origin: APP_ORIGIN });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(response.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    expect(response.headers.get("access-control-expose-headers")).toContain("DPoP-Nonce");
  });

  it("refuses a request from an origin not on the list with 403, before authentication", async () => {
    const before = app.dispatched.length;
    const response = await discover({ origin: "https://evil.example" });
    expect(response.status).toBe(403);
    expect(app.dispatched.length).toBe(before);
  });
});

describe("limits", () => {
  it("refuses a body over MAX_BODY_BYTES with 413", async () => {
    const response = await discover(
      { authorization: `Bearer ${bob}` },
      JSON.stringify({ pad: "x".repeat(4096) }),
    );
    expect(response.status).toBe(413);
  });

  it("rate-limits per principal: alice's spent budget leaves bob's untouched", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await discover({ authorization: `Bearer ${alice}` }, undefined, limited.url)).status);
    }
    const bobs = await discover({ authorization: `Bearer ${bob}` }, undefined, limited.url);

    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(bobs.status).toBe(200);
  });

  it("tells the limited client when to retry", async () => {
    const response = await discover({ authorization: `Bearer ${alice}` }, undefined, limited.url);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await response.json()).toEqual({
      error: expect.stringMatching(/^Too many requests: retry in \d+ s$/),
    });
  });

  it("counts requests without a valid token per address, apart from the users' budgets", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await callTool(limited.url, "list_workspace", { token: "not-a-jwt" })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("logged no token", () => {
    expect(watch.leaksIn(app.logs.text() + limited.logs.text())).toEqual([]);
  });
});
