import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../protocol/logger.js";
import { Server } from "../server/index.js";
import { type RunningHttpServer, startHttpServer } from "../test-support/http.js";
import { Client } from "./client.js";
import { SubscriptionLostError } from "./errors.js";
import type { ListenEvent, ListenStream } from "./listen-stream.js";
import { FakeClock } from "./test-support/recording.js";

function watchedServer(): Server {
  return new Server({ name: "watched", version: "1.0.0" }, { logger: silentLogger })
    .onListTools(() => ({ tools: [], ttlMs: 60_000, cacheScope: "public" }))
    .onListPrompts(() => ({ prompts: [] }))
    .onReadResource((_ctx, { uri }) => ({ contents: [{ uri, text: uri }], ttlMs: 60_000 }));
}

const running: RunningHttpServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((http) => http.close()));
});

async function serve(server: Server): Promise<RunningHttpServer> {
  const http = await startHttpServer(server);
  running.push(http);
  return http;
}

async function next(stream: ListenStream): Promise<ListenEvent | undefined> {
  const { value, done } = await stream.next();
  return done ? undefined : value;
}

describe("client.listen over Streamable HTTP", () => {
  it("yields the acknowledgement, then the changes asked for, and nothing else", async () => {
    const server = watchedServer();
    const http = await serve(server);
    const client = new Client(http.url);
    const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    expect(await next(stream)).toEqual({
      type: "acknowledged",
      notifications: { toolsListChanged: true, resourceSubscriptions: ["docs://a"] },
    });
    server.notifyPromptsListChanged();
    server.notifyResourceUpdated("docs://b");
    server.notifyToolsListChanged();
    expect(await next(stream)).toEqual({ type: "toolsListChanged" });
    server.notifyResourceUpdated("docs://a");
    expect(await next(stream)).toEqual({ type: "resourceUpdated", uri: "docs://a" });
    await stream.return();
    server.notifyToolsListChanged();
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    await client.close();
  });

  it("keeps two subscriptions apart, and ends when the server ends them", async () => {
    const server = watchedServer();
    const http = await serve(server);
    const client = new Client(http.url);
    const tools = client.listen({ toolsListChanged: true });
    const prompts = client.listen({ promptsListChanged: true });
    expect((await next(tools))?.type).toBe("acknowledged");
    expect((await next(prompts))?.type).toBe("acknowledged");
    server.notifyPromptsListChanged();
    expect(await next(prompts)).toEqual({ type: "promptsListChanged" });
    server.notifyToolsListChanged();
    expect(await next(tools)).toEqual({ type: "toolsListChanged" });
    server.close();
    expect(await tools.next()).toEqual({ value: undefined, done: true });
    expect(await prompts.next()).toEqual({ value: undefined, done: true });
  });

  it("opens the stream again after it breaks, acknowledged anew, after a backoff", async () => {
    const server = watchedServer();
    const http = await serve(server);
    const clock = new FakeClock();
    const client = new Client(http.url, { clock });
    const stream = client.listen({ toolsListChanged: true }, { reconnectDelayMs: 200 });
    expect((await next(stream))?.type).toBe("acknowledged");
    // The request itself goes again once at once, as any broken stream does; then the backoff.
    http.http.closeAllConnections();
    expect((await next(stream))?.type).toBe("acknowledged");
    expect(clock.sleeps).toEqual([]);
    http.http.closeAllConnections();
    expect((await next(stream))?.type).toBe("acknowledged");
    expect(clock.sleeps).toEqual([200]);
    server.notifyToolsListChanged();
    expect(await next(stream)).toEqual({ type: "toolsListChanged" });
    await stream.return();
  });

  it("fails with SubscriptionLostError after maxReconnects failed openings in a row, backing off", async () => {
    const server = watchedServer();
    const http = await serve(server);
    const clock = new FakeClock();
    const client = new Client(http.url, { clock });
    const stream = client.listen({ toolsListChanged: true }, { maxReconnects: 3, reconnectDelayMs: 100 });
    expect((await next(stream))?.type).toBe("acknowledged");
    // Gone for good: the stream breaks and every reopening is refused.
    running.splice(running.indexOf(http), 1);
    await http.close();
    const error = (await stream.next().catch((thrown: unknown) => thrown)) as SubscriptionLostError;
    expect(error).toBeInstanceOf(SubscriptionLostError);
    expect(error.attempts).toBe(4);
    expect(error.message).toMatch(/call client.listen again/);
    expect(clock.sleeps.slice(-3)).toEqual([100, 200, 400]);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it("ends on its signal and on client.close()", async () => {
    const server = watchedServer();
    const http = await serve(server);
    const client = new Client(http.url);
    const controller = new AbortController();
    const bySignal = client.listen({ toolsListChanged: true }, { signal: controller.signal });
    const byClose = client.listen({ promptsListChanged: true });
    expect((await next(bySignal))?.type).toBe("acknowledged");
    expect((await next(byClose))?.type).toBe("acknowledged");
    const pending = bySignal.next();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
    await client.close();
    expect(await byClose.next()).toEqual({ value: undefined, done: true });
  });

  it("makes the cached list or resource stale when its change is heard", async () => {
    const server = watchedServer();
    const http = await serve(server);
    let tools = 0;
    let reads = 0;
    server.use(async (ctx, next) => {
      if (ctx.method === "tools/list") tools++;
      if (ctx.method === "resources/read") reads++;
      return next();
    });
    const client = new Client(http.url, { cache: true });
    const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    await next(stream);
    await client.listTools();
    await client.readResource("docs://a");
    await client.listTools();
    await client.readResource("docs://a");
    expect([tools, reads]).toEqual([1, 1]);
    server.notifyToolsListChanged();
    await next(stream);
    server.notifyResourceUpdated("docs://a");
    await next(stream);
    await client.listTools();
    await client.readResource("docs://a");
    expect([tools, reads]).toEqual([2, 2]);
    await stream.return();
  });

  it("refuses a filter that is not one, before sending anything", () => {
    const client = new Client("http://127.0.0.1:9/mcp");
    expect(() => client.listen({ toolsListChanged: "yes" } as never)).toThrow(TypeError);
    expect(() => client.listen({}, { maxReconnects: -1 })).toThrow(RangeError);
  });
});
