import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../client/client.js";
import { silentLogger } from "../../protocol/logger.js";
import { startFetchServer } from "../../test-support/fetch-host.js";
import { fixtureServer } from "../../test-support/fixture-server.js";
import { closeHttp, post, type RunningHttpServer, resultOf, send } from "../../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import { createFetchHandler } from "./fetch-handler.js";
import { createNodeHandler } from "./http-server.js";

/** The handlers mounted on a route of the frameworks the README shows, each on a real server. */

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function roundTrip(url: string): Promise<string> {
  const client = new Client(url, {
    logger: silentLogger,
    onElicit: () => ({ action: "accept", content: { name: "Lin" } }),
  });
  closers.push(() => client.close());
  const result = await client.callTool("ask", {});
  return (result.content[0] as { text: string }).text;
}

async function listen(app: express.Express): Promise<RunningHttpServer> {
  const http = await new Promise<HttpServer>((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const running = {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    http,
    close: () => closeHttp(http),
  };
  closers.push(running.close);
  return running;
}

describe("a Hono app mounting createFetchHandler on a route", () => {
  async function honoApp(): Promise<RunningHttpServer> {
    const { server } = fixtureServer();
    const handler = createFetchHandler(server);
    const app = new Hono();
    app.get("/health", (c) => c.text("ok"));
    app.all("/mcp", (c) => handler(c.req.raw));
    const http = await startFetchServer(app.fetch, server);
    closers.push(http.close);
    return http;
  }

  it("serves the Roundtrip client a multi-round tool call, and leaves the app's other routes alone", async () => {
    const http = await honoApp();
    expect(await roundTrip(http.url)).toBe("Hello, Lin (round-1)");
    const health = await fetch(new URL("/health", http.url));
    expect(await health.text()).toBe("ok");
  });

  it("streams SSE through the app", async () => {
    const http = await honoApp();
    const reply = await post(http.url, rpcRequest("tools/call", { name: "chatty" }, { progressToken: 7 }));
    expect(reply.contentType).toBe("text/event-stream");
    expect(resultOf(reply).content).toEqual([{ type: "text", text: "chatted" }]);
  });
});

describe("an Express 5 app mounting createNodeHandler on a route", () => {
  it("serves the Roundtrip client when no body parser ran: the handler reads the body itself", async () => {
    const { server } = fixtureServer();
    const handle = createNodeHandler(server);
    const app = express();
    app.all("/mcp", (req, res) => handle(req, res, req.body));
    app.get("/health", (_req, res) => {
      res.send("ok");
    });
    const http = await listen(app);
    expect(await roundTrip(http.url)).toBe("Hello, Lin (round-1)");
    expect(await (await fetch(new URL("/health", http.url))).text()).toBe("ok");
    const garbage = await send(http.url, {
      method: "POST",
      headers: mcpHeaders(rpcRequest("tools/list")),
      body: "{",
    });
    expect(garbage.status).toBe(400);
  });

  it("takes the body express.json() already parsed", async () => {
    const { server } = fixtureServer();
    const handle = createNodeHandler(server);
    const app = express();
    app.use(express.json());
    app.all("/mcp", (req, res) => handle(req, res, req.body));
    const http = await listen(app);
    expect(await roundTrip(http.url)).toBe("Hello, Lin (round-1)");
    const reply = await post(http.url, rpcRequest("tools/call", { name: "echo", arguments: { text: "x" } }));
    expect(resultOf(reply).content).toEqual([{ type: "text", text: '{"text":"x"}' }]);
  });
});
