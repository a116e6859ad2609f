import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../client/client.js";
import { silentLogger } from "../../protocol/logger.js";
import { startFetchServer } from "../../test-support/fetch-host.js";
import { type Fixture, fixtureServer } from "../../test-support/fixture-server.js";
import {
  errorOf,
  notificationsOf,
  post,
  type RunningHttpServer,
  resultOf,
  SseReader,
  send,
} from "../../test-support/http.js";
import { AsyncQueue } from "../../test-support/in-process.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import { bearerAuth } from "../auth/bearer-auth.js";
import { jwtVerifier } from "../auth/jwt-verifier.js";
import {
  accessClaims,
  type IssuerServer,
  type LocalSigner,
  localSigner,
  startIssuerServer,
} from "../auth/test-support/issuer-server.js";
import { Server } from "../index.js";
import { RawStream, rawPost, rawSession } from "../legacy/test-support/raw-session.js";
import { createFetchHandler, type FetchHandlerOptions } from "./fetch-handler.js";

/**
 * createFetchHandler on Node's own Request and Response, behind a real node:http server (Hono's
 * Node adapter), against the real Roundtrip client and raw fetch calls.
 */

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const http of running.splice(0)) await http.close();
});

async function serveFetch(server: Server, options: FetchHandlerOptions = {}): Promise<RunningHttpServer> {
  const http = await startFetchServer(createFetchHandler(server, options), server);
  running.push(http);
  return http;
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function client(url: string, options: ConstructorParameters<typeof Client>[1] = {}): Client {
  const made = new Client(url, { logger: silentLogger, ...options });
  clients.push(made);
  return made;
}

describe("createFetchHandler: the 2026-07-28 era", () => {
  let fixture: Fixture;
  let http: RunningHttpServer;
  beforeAll(async () => {
    fixture = fixtureServer();
    http = await startFetchServer(createFetchHandler(fixture.server), fixture.server);
  });
  afterAll(() => http.close());

  it("serves the Roundtrip client a tool call over several rounds", async () => {
    const asked: string[] = [];
    const mcp = client(http.url, {
      onElicit: (params) => {
        asked.push(params.message);
        return { action: "accept", content: { name: "Grace" } };
      },
    });
    const result = await mcp.callTool("ask", {});
    expect(mcp.era).toBe("modern");
    expect(asked).toEqual(["Your name?"]);
    expect(result.content).toEqual([{ type: "text", text: "Hello, Grace (round-1)" }]);
  });

  it("answers a plain request with a JSON body of the right length", async () => {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "echo", arguments: { text: "é" } }));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("application/json");
    expect(Number(reply.headers.get("content-length"))).toBe(new TextEncoder().encode(reply.body).length);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: '{"text":"é"}' }]);
  });

  it("streams a request's notifications as SSE before its response", async () => {
    const reply = await post(
      http.url,
      rpcRequest("tools/call", { name: "chatty" }, { progressToken: "p1", logLevel: "info" }),
    );
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("text/event-stream");
    expect(reply.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(notificationsOf(reply).map((n) => n.method)).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
    ]);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: "chatted" }]);
  });

  it("aborts the handler's signal when the client goes away before the response", async () => {
    const controller = new AbortController();
    const request = rpcRequest("tools/call", { name: "slow" });
    const pending = post(http.url, request, { signal: controller.signal });
    const signal = await fixture.slowCalls.next();
    expect(signal.aborted).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await fixture.slowAborted.next()).toBe(String(request.id));
    expect(signal.aborted).toBe(true);
  });

  it("checks the request headers against the body, as the Node handler does", async () => {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "echo" }), {
      headers: { "mcp-name": "weather" },
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a foreign Origin with 403 before reading the body, and admits a loopback one", async () => {
    const request = rpcRequest("tools/list");
    const foreign = await post(http.url, request, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign).code).toBe(-32600);
    const local = await post(http.url, request, { headers: { origin: "http://localhost:5173" } });
    expect(local.status).toBe(200);
  });

  it("answers the protocol's statuses for the wrong method, media type and body", async () => {
    const put = await send(http.url, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("POST, GET, DELETE");
    const request = rpcRequest("tools/list");
    const text = await post(http.url, request, { headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    const garbage = await send(http.url, { method: "POST", headers: mcpHeaders(request), body: "{" });
    expect(garbage.status).toBe(400);
    expect(errorOf(garbage).code).toBe(-32700);
  });
});

describe("createFetchHandler: an SSE response the client leaves", () => {
  it("aborts the handler when the client cancels the stream mid-way", async () => {
    const aborted = new AsyncQueue<boolean>();
    const server = new Server({ name: "stream", version: "1" }, { logger: silentLogger }).onCallTool(
      async (ctx) => {
        await ctx.notify({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: 1 },
        });
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        aborted.push(ctx.signal.aborted);
        return { content: [] };
      },
    );
    const http = await serveFetch(server);
    const stream = await SseReader.open(http.url, rpcRequest("tools/call", { name: "wait" }));
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(await stream.next()).toMatchObject({ method: "notifications/message", params: { data: 1 } });
    stream.close();
    expect(await aborted.next()).toBe(true);
  });
});

describe("createFetchHandler: Host policy", () => {
  it("403 for a Host outside allowedHosts, and serves one inside it", async () => {
    const refusing = await serveFetch(fixtureServer().server, { allowedHosts: ["localhost"] });
    expect((await post(refusing.url, rpcRequest("tools/list"))).status).toBe(403);
    const admitting = await serveFetch(fixtureServer().server, { allowedHosts: ["127.0.0.1"] });
    expect((await post(admitting.url, rpcRequest("tools/list"))).status).toBe(200);
  });
});

describe("createFetchHandler: body size", () => {
  it("413 for a declared length or a chunked body over maxBodyBytes, and serves one under it", async () => {
    const http = await serveFetch(fixtureServer().server, { maxBodyBytes: 1024 });
    const big = rpcRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(4096) } });
    const declared = await post(http.url, big);
    expect(declared.status).toBe(413);
    expect(errorOf(declared).code).toBe(-32600);
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const chunked = await send(
      http.url,
      { method: "POST", headers: mcpHeaders(big), body, duplex: "half" } as RequestInit,
      "tools/call",
    );
    expect(chunked.status).toBe(413);
    const small = await post(http.url, rpcRequest("tools/call", { name: "echo", arguments: { text: "ok" } }));
    expect(small.status).toBe(200);
  });
});

describe("createFetchHandler: bearer authentication", () => {
  const AUDIENCE = "https://mcp.example/mcp";
  const METADATA = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
  let issuer: IssuerServer;
  let signer: LocalSigner;
  beforeAll(async () => {
    issuer = await startIssuerServer();
    signer = await localSigner();
    issuer.json("/.well-known/oauth-authorization-server", {
      issuer: issuer.origin,
      jwks_uri: `${issuer.origin}/jwks`,
    });
    issuer.json("/jwks", { keys: [signer.publicJwk] });
  });
  afterAll(() => issuer.close());

  async function protectedServer(): Promise<RunningHttpServer> {
    const server = new Server({ name: "protected", version: "1" }, { logger: silentLogger }).onCallTool(
      (ctx) => ({ content: [{ type: "text", text: `${ctx.auth?.clientId}/${ctx.auth?.subject}` }] }),
    );
    return serveFetch(server, {
      authenticate: bearerAuth({
        verifier: jwtVerifier({ issuer: issuer.origin, audience: AUDIENCE, allowInsecureHttp: true }),
        resourceMetadataUrl: METADATA,
        toolScopes: { deploy: ["mcp:deploy"] },
      }),
    });
  }

  /** Raw fetch: an authentication refusal is HTTP's, its body no JSON-RPC message. */
  async function call(url: string, token?: string): Promise<Response> {
    const request = rpcRequest("tools/call", { name: "deploy" });
    const headers = mcpHeaders(request);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    return fetch(url, { method: "POST", headers, body: JSON.stringify(request) });
  }

  it("refuses a request without a token with 401 and the challenge naming the resource metadata", async () => {
    const http = await protectedServer();
    const reply = await call(http.url);
    expect(reply.status).toBe(401);
    const challenge = reply.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${METADATA}"`);
    expect(challenge).toContain('scope="mcp:deploy"');
  });

  it("refuses a token without the tool's scope with 403, and serves one with it", async () => {
    const http = await protectedServer();
    const weak = await signer.sign(accessClaims(issuer.origin, AUDIENCE, { scope: "mcp:read" }));
    const refused = await call(http.url, weak);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const strong = await signer.sign(accessClaims(issuer.origin, AUDIENCE, { scope: "mcp:deploy" }));
    const served = await call(http.url, strong);
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({
      result: { content: [{ type: "text", text: "client-1/alice" }] },
    });
  });
});

describe("createFetchHandler: 2025-era sessions", () => {
  it("serves the Roundtrip client in the 2025 era, input requests travelling as server requests", async () => {
    const http = await serveFetch(fixtureServer().server);
    const mcp = client(http.url, {
      era: "legacy",
      onElicit: () => ({ action: "accept", content: { name: "Ada" } }),
    });
    const result = await mcp.callTool("ask", {});
    expect(mcp.era).toBe("legacy");
    expect(result.content).toHaveLength(1);
    expect((result.content[0] as { text: string }).text).toMatch(/^Hello, Ada/);
  });

  it("opens a session, calls a tool, streams on GET, resumes from Last-Event-ID, and DELETE ends it", async () => {
    const { server } = fixtureServer();
    const http = await serveFetch(server);
    const session = await rawSession(http.url);
    const call = await rawPost(
      http.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
      session.headers,
    );
    expect(call.messages[0]).toMatchObject({ id: 2, result: { content: [{ text: '{"text":"hi"}' }] } });

    const first = await RawStream.get(http.url, session.headers);
    expect(first.status).toBe(200);
    server.notifyToolsListChanged();
    const seen = await first.next();
    expect(seen?.message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(seen?.id).toBeTypeOf("string");
    first.close();
    // Dropped: once the server has seen the stream go, what follows is missed and kept for a resume.
    await expect
      .poll(
        async () =>
          (await fetch(http.url, { headers: { accept: "text/event-stream", ...session.headers } })).status,
      )
      .not.toBe(409);
    server.notifyPromptsListChanged();
    const resumed = await RawStream.get(http.url, {
      ...session.headers,
      "last-event-id": seen?.id as string,
    });
    expect((await resumed.next())?.message.method).toBe("notifications/prompts/list_changed");
    resumed.close();

    const ended = await fetch(http.url, { method: "DELETE", headers: session.headers });
    expect(ended.status).toBe(200);
    const after = await rawPost(http.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, session.headers);
    expect(after.status).toBe(404);
  });
});
