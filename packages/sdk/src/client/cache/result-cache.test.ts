import { afterEach, describe, expect, it } from "vitest";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { type Logger, silentLogger } from "../../protocol/logger.js";
import { Server } from "../../server/server.js";
import { Client, type ClientOptions } from "../client.js";
import { type HttpPeer, serveOverHttp } from "../test-support/http-peer.js";
import { FakeClock } from "../test-support/recording.js";
import { MemoryResultCacheStore, type ResultCacheStore } from "./result-cache-store.js";

/** A clock the cache reads; tests move it instead of waiting. */
class Now {
  ms = 1_000_000;
  read = () => this.ms;
}

/**
 * tools/list is public for a minute, prompts/list private for a minute, resources/list never fresh;
 * resources/read is public for a minute, except `secret://` (private), `ask://` (asks first) and
 * `flaky://` (fails on its first read).
 */
function cachingServer() {
  let flaky = 0;
  return new Server({ name: "cached", version: "1.0.0" }, { logger: silentLogger })
    .onListTools(() => ({
      tools: [{ name: "t", inputSchema: { type: "object" } }],
      ttlMs: 60_000,
      cacheScope: "public",
    }))
    .onListPrompts(() => ({ prompts: [{ name: "p" }], ttlMs: 60_000, cacheScope: "private" }))
    .onListResources(() => ({ resources: [], ttlMs: 0, cacheScope: "public" }))
    .onListResourceTemplates(() => ({ resourceTemplates: [{ name: "ask", uriTemplate: "ask://{id}" }] }))
    .onReadResource((_ctx, { uri, inputResponses }) => {
      if (uri.startsWith("ask://") && inputResponses === undefined) {
        return inputRequired({
          inputRequests: { ok: elicitForm("Open it?", { type: "object", properties: {} }) },
        });
      }
      if (uri.startsWith("flaky://") && flaky++ === 0) throw new Error("backend warming up");
      const cacheScope = uri.startsWith("secret://") ? "private" : "public";
      return { contents: [{ uri, text: `read ${uri}` }], ttlMs: 60_000, cacheScope };
    });
}

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function serve(): Promise<HttpPeer> {
  const peer = await serveOverHttp(cachingServer());
  peers.push(peer);
  return peer;
}

const sent = (peer: HttpPeer, method: string) =>
  peer.seen.filter((seen) => seen.body.method === method).length;

function clientOf(peer: HttpPeer, options: ClientOptions = {}): Client {
  return new Client(peer.url, {
    clock: new FakeClock(),
    onElicit: () => ({ action: "accept", content: {} }),
    ...options,
  });
}

describe("the client's result cache", () => {
  it("reuses a result while its ttlMs lasts, telling how much is left, then asks again", async () => {
    const peer = await serve();
    const now = new Now();
    const client = clientOf(peer, { cache: { now: now.read } });
    expect((await client.listTools()).ttlMs).toBe(60_000);
    now.ms += 45_000;
    const again = await client.listTools();
    expect(again.tools.map((tool) => tool.name)).toEqual(["t"]);
    expect(again.ttlMs).toBe(15_000);
    expect(sent(peer, "tools/list")).toBe(1);
    now.ms += 15_000;
    await client.listTools();
    expect(sent(peer, "tools/list")).toBe(2);
  });

  it("keeps nothing without a positive ttlMs, and nothing when the client has no cache", async () => {
    const peer = await serve();
    const client = clientOf(peer, { cache: true });
    await client.listResources();
    await client.listResources();
    await client.listResourceTemplates();
    await client.listResourceTemplates();
    expect(sent(peer, "resources/list")).toBe(2);
    expect(sent(peer, "resources/templates/list")).toBe(2);
    const uncached = clientOf(peer);
    await uncached.listTools();
    await uncached.listTools();
    expect(sent(peer, "tools/list")).toBe(2);
  });

  it("shares public results through a shared store, and private ones only within one authorization context", async () => {
    const peer = await serve();
    const store = new MemoryResultCacheStore();
    const alice = clientOf(peer, { cache: { store, authorizationContext: "alice" } });
    const aliceAgain = clientOf(peer, { cache: { store, authorizationContext: "alice" } });
    const bob = clientOf(peer, { cache: { store, authorizationContext: "bob" } });
    const stranger = clientOf(peer, { cache: { store } });
    await alice.listTools();
    await alice.listPrompts();
    await Promise.all([aliceAgain.listTools(), bob.listTools(), stranger.listTools()]);
    expect(sent(peer, "tools/list")).toBe(1);
    await aliceAgain.listPrompts();
    expect(sent(peer, "prompts/list")).toBe(1);
    await bob.listPrompts();
    await stranger.listPrompts();
    expect(sent(peer, "prompts/list")).toBe(3);
    expect((await bob.listPrompts()).prompts).toEqual([{ name: "p" }]);
    expect(sent(peer, "prompts/list")).toBe(3);
  });

  it("keys resources/read by its uri; never keeps a read that asked for input, nor an error", async () => {
    const peer = await serve();
    const client = clientOf(peer, { cache: true });
    await client.readResource("docs://a");
    await client.readResource("docs://a");
    await client.readResource("docs://b");
    expect(sent(peer, "resources/read")).toBe(2);
    expect((await client.readResource("ask://1")).contents[0]).toMatchObject({ text: "read ask://1" });
    expect(sent(peer, "resources/read")).toBe(4);
    await client.readResource("ask://1");
    expect(sent(peer, "resources/read")).toBe(6);
    await expect(client.readResource("flaky://x")).rejects.toThrow();
    expect((await client.readResource("flaky://x")).contents[0]).toMatchObject({ text: "read flaky://x" });
    await client.readResource("flaky://x");
    expect(sent(peer, "resources/read")).toBe(8);
  });

  it("never serves a request that carries answers or requestState from the cache", async () => {
    const peer = await serve();
    const client = clientOf(peer, { cache: true });
    await client.readResource("docs://a");
    await client.readResource("docs://a", { inputResponses: { ok: { action: "accept", content: {} } } });
    expect(sent(peer, "resources/read")).toBe(2);
  });

  it("goes to the server for reload and no-store, keeping only what reload read", async () => {
    const peer = await serve();
    const now = new Now();
    const client = clientOf(peer, { cache: { now: now.read } });
    await client.listTools({ cache: "no-store" });
    await client.listTools();
    expect(sent(peer, "tools/list")).toBe(2);
    now.ms += 50_000;
    await client.listTools({ cache: "reload" });
    now.ms += 50_000;
    expect((await client.listTools()).ttlMs).toBe(10_000);
    expect(sent(peer, "tools/list")).toBe(3);
  });

  it("goes to the server when the store fails, and says so in the log", async () => {
    const peer = await serve();
    const warnings: string[] = [];
    const logger = {
      warn: (_fields: unknown, message: string) => warnings.push(message),
    } as unknown as Logger;
    const broken: ResultCacheStore = {
      get: () => Promise.reject(new Error("store down")),
      set: () => Promise.reject(new Error("store down")),
      deletePrefix: () => undefined,
    };
    const client = clientOf(peer, { cache: { store: broken }, logger });
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.listTools();
    expect(sent(peer, "tools/list")).toBe(2);
    expect(warnings).toContain("result cache store failed; going to the server");
  });

  it("bounds the memory store, the oldest entry going first", async () => {
    const store = new MemoryResultCacheStore({ maxEntries: 2 });
    const entry = { result: {}, expiresAt: Number.MAX_SAFE_INTEGER };
    store.set("a", entry);
    store.set("b", entry);
    store.set("c", entry);
    expect([store.get("a"), store.get("b") !== undefined, store.size]).toEqual([undefined, true, 2]);
    expect(() => new MemoryResultCacheStore({ maxEntries: 0 })).toThrow(RangeError);
  });
});
