import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import type { AuthInfo } from "../auth-info.js";
import { Server } from "../index.js";
import { bearerAuth } from "./bearer-auth.js";
import { InvalidTokenError } from "./errors.js";
import type { TokenVerifier } from "./token-verifier.js";

const METADATA = "https://mcp.example/.well-known/oauth-protected-resource/mcp";

const GRANTS: Record<string, string[]> = {
  "tools-token": ["mcp:tools"],
  "admin-token": ["mcp:admin"],
  "inherited-names-token": ["constructor", "__proto__", "toString", "mcp:list"],
};

/** Tokens are looked up by value: those in GRANTS, `expired`, `broken` (verifier failure); anything else is invalid. */
const stubVerifier: TokenVerifier = {
  async verify(token) {
    const now = Math.floor(Date.now() / 1000);
    const scopes = Object.hasOwn(GRANTS, token) ? GRANTS[token] : undefined;
    if (scopes) return { token, clientId: "c", scopes, expiresAt: now + 60 } satisfies AuthInfo;
    if (token === "expired") return { token, clientId: "c", scopes: [], expiresAt: now - 60 };
    if (token === "broken") throw new Error("key store offline");
    throw new InvalidTokenError("The access token is unknown");
  },
};

let http: RunningHttpServer;
const handled: string[] = [];

beforeAll(async () => {
  const server = new Server({ name: "bearer-test", version: "0.0.0" }, { logger: silentLogger });
  server.onListTools(() => ({ tools: [] }));
  server.onCallTool((_ctx, params) => {
    handled.push(params.name);
    return { content: [] };
  });
  http = await startHttpServer(server, {
    authenticate: bearerAuth({
      verifier: stubVerifier,
      resourceMetadataUrl: METADATA,
      toolScopes: { deploy: ["mcp:deploy"], déployer: ["mcp:deploy"] },
      scopesForRequest: (target) => (target.method === "tools/list" ? ["mcp:list"] : undefined),
      scopeHierarchy: { "mcp:admin": ["mcp:deploy", "mcp:list"] },
    }),
  });
});
afterAll(() => http.close());

async function send(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  query = "",
): Promise<{ status: number; challenge: string | null }> {
  const request = rpcRequest(method, params);
  const before = handled.length;
  const response = await fetch(`${http.url}${query}`, {
    method: "POST",
    headers: { ...mcpHeaders(request), ...headers },
    body: JSON.stringify(request),
  });
  await response.body?.cancel();
  if (response.status !== 200) expect(handled.length).toBe(before);
  return { status: response.status, challenge: response.headers.get("www-authenticate") };
}

describe("bearerAuth", () => {
  it("treats another scheme as no bearer token: 401 without an error code", async () => {
    const reply = await send("tools/call", { name: "echo" }, { authorization: "Basic dXNlcjpwYXNz" });
    expect(reply).toEqual({ status: 401, challenge: `Bearer resource_metadata="${METADATA}"` });
  });

  it("answers a malformed Authorization header with 400 invalid_request", async () => {
    const reply = await send("tools/call", { name: "echo" }, { authorization: "Bearer two words" });
    expect(reply.status).toBe(400);
    expect(reply.challenge).toMatch(/^Bearer error="invalid_request"/);
  });

  it("refuses a query-string token even beside a valid header", async () => {
    const reply = await send(
      "tools/call",
      { name: "echo" },
      { authorization: "Bearer tools-token" },
      "?access_token=tools-token",
    );
    expect(reply.status).toBe(400);
  });

  it("answers 401 invalid_token with the verifier's reason", async () => {
    const reply = await send("tools/call", { name: "echo" }, { authorization: "Bearer nope" });
    expect(reply.status).toBe(401);
    expect(reply.challenge).toBe(
      `Bearer error="invalid_token", resource_metadata="${METADATA}", error_description="The access token is unknown"`,
    );
  });

  it("refuses an expired AuthInfo from a verifier that does not check expiry", async () => {
    const reply = await send("tools/call", { name: "echo" }, { authorization: "Bearer expired" });
    expect(reply.status).toBe(401);
    expect(reply.challenge).toMatch(/has expired/);
  });

  it("lets a verifier failure surface as 500, not as a bad token", async () => {
    expect((await send("tools/call", { name: "echo" }, { authorization: "Bearer broken" })).status).toBe(500);
  });

  it("reads a base64-encoded Mcp-Name when choosing the tool's scopes", async () => {
    const reply = await send("tools/call", { name: "déployer" }, { authorization: "Bearer tools-token" });
    expect(reply.status).toBe(403);
    expect(reply.challenge).toMatch(/scope="mcp:deploy"/);
  });

  it("asks per-request scopes from scopesForRequest", async () => {
    const reply = await send("tools/list", {}, { authorization: "Bearer tools-token" });
    expect(reply.status).toBe(403);
    expect(reply.challenge).toMatch(/scope="mcp:list"/);
  });

  it("lets a broader scope in the hierarchy satisfy a narrower one", async () => {
    expect(
      (await send("tools/call", { name: "deploy" }, { authorization: "Bearer admin-token" })).status,
    ).toBe(200);
    expect(handled.at(-1)).toBe("deploy");
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])(
    "treats a tool named %s as a tool without extra scopes, not as a property of every object",
    async (name) => {
      const reply = await send("tools/call", { name }, { authorization: "Bearer tools-token" });
      expect(reply.status).toBe(200);
      expect(handled.at(-1)).toBe(name);
    },
  );

  it("does not follow a granted scope named like an object property into the hierarchy", async () => {
    const reply = await send("tools/list", {}, { authorization: "Bearer inherited-names-token" });
    expect(reply.status).toBe(200);
  });
});

describe("bearerAuth on a 2025-era session", () => {
  /** A 2025-11-25 session opened with `token`, and a POST on it that names its tool in the body only. */
  async function legacyCall(token: string, tool: string): Promise<number> {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    const opened = await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1" },
        },
      }),
    });
    await opened.body?.cancel();
    const session = opened.headers.get("mcp-session-id") ?? "";
    expect([opened.status, session === ""]).toEqual([200, false]);
    const before = handled.length;
    const called = await fetch(http.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: tool, arguments: {} },
      }),
    });
    await called.body?.cancel();
    if (called.status !== 200) expect(handled.length).toBe(before);
    return called.status;
  }

  it("holds a tool to its own scopes although no Mcp-Name header names it", async () => {
    expect(await legacyCall("tools-token", "deploy")).toBe(403);
    expect(await legacyCall("tools-token", "echo")).toBe(200);
    expect(await legacyCall("admin-token", "deploy")).toBe(200);
  });
});
