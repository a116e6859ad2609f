import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../protocol/errors.js";
import { headerText } from "../../protocol/http-headers.js";
import { startFetchServer } from "../../test-support/fetch-host.js";
import { fixtureServer } from "../../test-support/fixture-server.js";
import {
  answerBeforeBodyEnds,
  errorOf,
  post,
  type RunningHttpServer,
  resultOf,
  send,
  startHttpServer,
} from "../../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import type { AuthInfo } from "../auth-info.js";
import { mcpFastify } from "../fastify.js";
import type { Server } from "../server.js";
import { createFetchHandler } from "./fetch-handler.js";
import { HttpError } from "./http-errors.js";
import { DEFAULT_MAX_BODY_DEPTH } from "./request-body.js";
import type { RequestHead } from "./request-head.js";

/**
 * What a peer can make the HTTP transport read and compute, on every host: the token is checked
 * before a byte of the body is read, the body's size while it is read, and its nesting before any
 * parser walks it.
 */

const TOKEN = "the-one-good-token";
const LIMIT = 64 * 1024;

/** The hook a server installs: a refusal is an HttpError with its challenge, as bearerAuth throws. */
async function authenticate(req: RequestHead): Promise<AuthInfo> {
  if (headerText(req.headers, "authorization") === `Bearer ${TOKEN}`) {
    return { token: TOKEN, clientId: "limits-test", scopes: [] };
  }
  throw new HttpError(401, "Unauthorized: send an access token as 'Authorization: Bearer <token>'", {
    headers: { "www-authenticate": 'Bearer resource_metadata="https://mcp.example/.well-known/x"' },
  });
}

const options = { authenticate, maxBodyBytes: LIMIT };

const HOSTS: Record<string, (server: Server) => Promise<RunningHttpServer>> = {
  createNodeHandler: (server) => startHttpServer(server, options),
  createFetchHandler: (server) => startFetchServer(createFetchHandler(server, options), server),
  mcpFastify: async (server) => {
    // A request the server still waits on must not hold up the suite's close.
    const app = Fastify({ logger: false, forceCloseConnections: true });
    await app.register(mcpFastify, { server, path: "/mcp", ...options });
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    return { url: `${address}/mcp`, http: app.server, close: () => app.close() };
  },
};

/** A tools/call whose arguments hold `raw`, JSON text no serializer would write. */
function callWithRawArguments(raw: string): { headers: Record<string, string>; body: string } {
  const request = rpcRequest("tools/call", { name: "echo", arguments: "RAW" });
  return {
    headers: { ...mcpHeaders(request), authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(request).replace('"RAW"', raw),
  };
}

/** Objects `depth` deep around a 1, as a hostile peer writes them. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe.each(Object.entries(HOSTS))("%s: what a peer can make the transport read and parse", (_, host) => {
  let http: RunningHttpServer;
  beforeAll(async () => {
    http = await host(fixtureServer().server);
  });
  afterAll(() => http.close());

  it("answers a request without a token with 401 before reading its body", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: {} });
    // The first 32 KiB of a deep body the client declared whole: nothing more ever comes.
    const answer = await answerBeforeBodyEnds(http.url, mcpHeaders(request), "[".repeat(32 * 1024), LIMIT);
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain("resource_metadata=");
  });

  it("answers 413 as soon as a body grows past the limit, without waiting for the rest", async () => {
    const { headers } = callWithRawArguments("{}");
    const answer = await answerBeforeBodyEnds(http.url, headers, " ".repeat(LIMIT + 1));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: ErrorCode.InvalidRequest, message: expect.stringContaining(`exceeds ${LIMIT} bytes`) },
    });
  });

  it("refuses a body nested beyond the limit with 400 -32700 before parsing it", async () => {
    // Not JSON past the depth limit: a parser would call it invalid, so naming the depth shows none ran.
    const broken = callWithRawArguments(`${"[".repeat(DEFAULT_MAX_BODY_DEPTH)}oops`);
    const refused = await send(http.url, { method: "POST", headers: broken.headers, body: broken.body });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      code: ErrorCode.ParseError,
      message: `Parse error: the request body nests arrays and objects deeper than ${DEFAULT_MAX_BODY_DEPTH} levels; send a flatter message or raise maxBodyDepth`,
    });
    const deep = callWithRawArguments(nested(5_000));
    const alsoRefused = await send(http.url, { method: "POST", headers: deep.headers, body: deep.body });
    expect(alsoRefused.status).toBe(400);
    expect(errorOf(alsoRefused).code).toBe(ErrorCode.ParseError);
  });

  it("parses a body at the limit, whose arguments then meet the params limits", async () => {
    // The body and params are 2 of the levels.
    const atLimit = callWithRawArguments(nested(DEFAULT_MAX_BODY_DEPTH - 2));
    const reply = await send(http.url, { method: "POST", headers: atLimit.headers, body: atLimit.body });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(ErrorCode.InvalidParams);
    expect(errorOf(reply).message).toContain("arguments nests deeper than this server's limit of 64 levels");
  });

  it("serves a request with the token", async () => {
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text: "hi" } });
    const reply = await post(http.url, request, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(reply.status).toBe(200);
    expect(resultOf(reply).isError).toBeUndefined();
  });
});

describe("mcpFastify: the app's own hooks after parsing", () => {
  it("never see a body refused for its depth", async () => {
    const seen: unknown[] = [];
    const app = Fastify({ logger: false });
    await app.register(async (scope) => {
      scope.addHook("preHandler", async (request) => {
        seen.push(request.body);
      });
      await scope.register(mcpFastify, { server: fixtureServer().server, path: "/mcp", ...options });
    });
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const deep = callWithRawArguments(nested(5_000));
      const refused = await send(`${address}/mcp`, {
        method: "POST",
        headers: deep.headers,
        body: deep.body,
      });
      expect(refused.status).toBe(400);
      expect(seen).toEqual([]);
      const fine = callWithRawArguments(JSON.stringify({ text: "hi" }));
      expect((await send(`${address}/mcp`, { method: "POST", ...fine }, "tools/call")).status).toBe(200);
      expect(seen).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe("createNodeHandler: maxBodyDepth", () => {
  it("holds bodies to the configured depth", async () => {
    const http = await startHttpServer(fixtureServer().server, { ...options, maxBodyDepth: 8 });
    try {
      // The body and params are 2 of the levels.
      const deep = callWithRawArguments(nested(7));
      const refused = await send(http.url, { method: "POST", headers: deep.headers, body: deep.body });
      expect(errorOf(refused).message).toContain("deeper than 8 levels");
      const fine = callWithRawArguments(nested(6));
      expect((await send(http.url, { method: "POST", ...fine }, "tools/call")).status).toBe(200);
    } finally {
      await http.close();
    }
  });
});
