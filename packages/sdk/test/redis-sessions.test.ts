import { RedisServer } from "@roundtrip/test-services";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { ErrorCode } from "../src/protocol/errors.js";
import { elicitForm, inputRequired } from "../src/protocol/input-required.js";
import type { RedisStandaloneClient } from "../src/server/fleet/redis/redis-client.js";
import { RedisNotificationBus } from "../src/server/fleet/redis/redis-notification-bus.js";
import { RedisSessionRegistry } from "../src/server/fleet/redis/redis-session-registry.js";
import { connectedClient } from "../src/server/fleet/redis/test-support/connected-client.js";
import { fleetCodec } from "../src/server/fleet/test-support/fleet-codec.js";
import { McpServer } from "../src/server/index.js";
import { MAX_SESSION_FACTS_BYTES } from "../src/server/legacy/session-facts.js";
import {
  initializeMessage,
  RawStream,
  rawPost,
  rawSession,
} from "../src/server/legacy/test-support/raw-session.js";
import { toElicitationSchema } from "../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../src/server/mcp-server/input-responses.js";
import { until } from "../src/server/mcp-server/test-support/once.js";
import { type RunningHttpServer, startHttpServer } from "../src/test-support/http.js";
import { recordingLogger } from "../src/test-support/in-process.js";
import { closersAfterEach, redisServerPerFile } from "./support/redis-server.js";

const Name = z.object({ name: z.string() });
const redis = redisServerPerFile();
const closers = closersAfterEach();

/** One instance of a fleet over HTTP: its own Redis connections, the bus and the session registry. */
async function instance(
  fleet: string,
  maxSessionsPerPrincipal = 100,
  url = redis().url,
): Promise<RunningHttpServer & { mcp: McpServer; client: RedisStandaloneClient }> {
  const client = await connectedClient(url);
  const bus = new RedisNotificationBus({ client, channel: `${fleet}:bus`, codec: fleetCodec() });
  await bus.ready();
  const sessions = new RedisSessionRegistry({ client, prefix: `${fleet}:session:` });
  const mcp = new McpServer(
    { name: "fleet", version: "1.0.0" },
    { bus, logger: recordingLogger(), legacy: { sessions, maxSessionsPerPrincipal } },
  );
  mcp.tool("greet", {}, (_args, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer)
      return inputRequired({ inputRequests: { name: elicitForm("Name?", toElicitationSchema(Name)) } });
    return `Hello, ${answer.name}!`;
  });
  mcp.resource("a", { uri: "test://a", mimeType: "text/plain" }, () => "A");
  const http = await startHttpServer(mcp.server);
  closers.push(
    () => client.destroy(),
    () => bus.close(),
    () => http.close(),
  );
  return Object.assign(http, { mcp, client });
}

const fleetName = () => `fleet:${Math.random().toString(36).slice(2)}`;
const call = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("2025-era sessions shared through Redis, no sticky routing", () => {
  it("a session opened on one instance is served on another, and DELETE anywhere ends it everywhere", async () => {
    const fleet = fleetName();
    const [a, b] = [await instance(fleet), await instance(fleet)];
    const session = await rawSession(a.url, undefined, { elicitation: {} });
    const listed = await rawPost(b.url, call(2, "tools/list"), session.headers);
    expect(listed.status).toBe(200);
    const tools = (listed.messages[0]?.result as { tools: { name: string }[] } | undefined)?.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(["greet"]);
    expect((await rawPost(b.url, { jsonrpc: "2.0", id: 3, method: "ping" }, session.headers)).status).toBe(
      200,
    );
    const deleted = await fetch(b.url, { method: "DELETE", headers: session.headers });
    expect(deleted.status).toBe(200);
    for (const url of [a.url, b.url]) {
      expect((await rawPost(url, call(4, "tools/list"), session.headers)).status).toBe(404);
    }
  });

  it("the client's answer posted to another instance reaches the instance that asked", async () => {
    const fleet = fleetName();
    const [a, b] = [await instance(fleet), await instance(fleet)];
    const session = await rawSession(a.url, undefined, { elicitation: {} });
    const asking = await RawStream.post(
      b.url,
      call(7, "tools/call", { name: "greet", arguments: {} }),
      session.headers,
    );
    const question = (await asking.next())?.message as { id: string; method: string };
    expect(question.method).toBe("elicitation/create");
    const answered = await rawPost(
      a.url,
      { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name: "Ada" } } },
      session.headers,
    );
    expect(answered.status).toBe(202);
    const response = (await asking.next())?.message as { id: number; result: { content: unknown[] } };
    expect(response.id).toBe(7);
    expect(response.result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    asking.close();
  });

  it("the GET stream on one instance hears a list change and a subscribed update made on another", async () => {
    const fleet = fleetName();
    const [a, b] = [await instance(fleet), await instance(fleet)];
    const session = await rawSession(a.url);
    const stream = await RawStream.get(a.url, session.headers);
    // Subscribed through B: A, which holds the stream, must learn of it.
    const subscribed = await rawPost(
      b.url,
      call(2, "resources/subscribe", { uri: "test://a" }),
      session.headers,
    );
    expect(subscribed.status).toBe(200);
    b.mcp.server.notifyResourceUpdated("test://other");
    b.mcp.server.notifyResourceUpdated("test://a");
    b.mcp.tool("added", {}, () => "ok");
    expect((await stream.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://a" },
    });
    expect((await stream.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    stream.close();
  });

  it("the per-principal cap counts the sessions of every instance", async () => {
    const fleet = fleetName();
    const [a, b] = [await instance(fleet, 2), await instance(fleet, 2)];
    await rawSession(a.url);
    await rawSession(b.url);
    const refused = await rawPost(
      b.url,
      call(1, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      }),
    );
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.messages)).toMatch(/Too many open sessions \(2\)/);
  });

  it("answers 503 with Retry-After, saying to retry, while the registry's Redis is away", async () => {
    const own = await RedisServer.start();
    closers.push(() => own.stop());
    const a = await instance(fleetName(), 100, own.url);
    const session = await rawSession(a.url);
    await own.stop();
    await until(() => !a.client.isReady);
    for (const [message, headers] of [
      [call(2, "tools/list"), session.headers],
      [initializeMessage(), {}],
    ] as const) {
      const reply = await rawPost(a.url, message, headers);
      expect(reply.status).toBe(503);
      expect(reply.headers.get("retry-after")).toBe("1");
      expect(JSON.stringify(reply.messages)).toMatch(/shared store it cannot reach right now; retry shortly/);
    }
  });

  it("a session nobody uses expires on every instance", async () => {
    const fleet = fleetName();
    const client = createClient({ url: redis().url });
    await client.connect();
    closers.push(() => client.destroy());
    const registry = new RedisSessionRegistry({ client, prefix: `${fleet}:session:` });
    const record = {
      principal: "p",
      protocolVersion: "2025-11-25",
      clientCapabilities: {},
      initialized: true,
      subscriptions: [],
    };
    // Idle long enough that nothing expires between these steps while the machine is slow.
    const limits = { idleMs: 60_000, maxPerPrincipal: 1, now: Date.now() };
    await registry.create("s1", record, limits);
    expect(await registry.load("s1", "p", limits)).toEqual(record);
    expect(await registry.load("s1", "someone else", limits)).toBeUndefined();
    await expect(registry.create("s2", record, limits)).rejects.toThrow(/Too many open sessions \(1\)/);
    // Another principal's session, created with a 200 ms idle time and never used: create alone
    // must set both its expiry and its slot's. Loading would push them back, so only the cap is
    // polled: its slot frees once q1 has expired.
    const other = { ...record, principal: "q" };
    const brief = { idleMs: 200, maxPerPrincipal: 1 };
    await registry.create("q1", other, { ...brief, now: Date.now() });
    await until(() =>
      registry.create("q2", other, { ...brief, now: Date.now() }).then(
        () => true,
        () => false,
      ),
    );
    expect(await registry.load("q1", "q", { ...brief, now: Date.now() })).toBeUndefined();
    // The long-lived session of the first principal is still there.
    expect(await registry.load("s1", "p", limits)).toEqual(record);
  });
});

/** The keys of a fleet in a Redis, sorted. */
async function keysOf(client: RedisStandaloneClient, fleet: string): Promise<string[]> {
  return ((await client.sendCommand(["KEYS", `${fleet}:*`])) as string[]).sort();
}

/** `used_memory` from INFO memory, in bytes. */
async function usedMemory(client: RedisStandaloneClient): Promise<number> {
  const info = String(await client.sendCommand(["INFO", "memory"]));
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
}

const oversizedInitialize = (id: number) =>
  initializeMessage(undefined, { experimental: { blob: { data: `${id}`.padEnd(3_600_000, "x") } } }, id);

const aRecord = {
  principal: "p",
  protocolVersion: "2025-11-25",
  clientCapabilities: {},
  initialized: true,
  subscriptions: [] as string[],
};

describe("what a peer can make the fleet's Redis keep", () => {
  it("refuses an initialize too large to share with -32602, and Redis holds nothing of it", async () => {
    const fleet = fleetName();
    const a = await instance(fleet);
    const refused = await rawPost(a.url, oversizedInitialize(1));
    expect(refused.status).toBe(400);
    expect(refused.messages[0]).toMatchObject({ id: 1, error: { code: ErrorCode.InvalidParams } });
    expect(JSON.stringify(refused.messages[0])).toMatch(
      new RegExp(`beyond this server's limit of ${MAX_SESSION_FACTS_BYTES} bytes`),
    );
    expect(await keysOf(a.client, fleet)).toEqual([]);
    const session = await rawSession(a.url);
    expect(await keysOf(a.client, fleet)).toHaveLength(2);
    expect((await keysOf(a.client, fleet)).some((key) => key.endsWith(session.id))).toBe(true);
  });

  it("refuses to store a record over the limit, on create and on save, before sending it", async () => {
    const fleet = fleetName();
    const client = createClient({ url: redis().url });
    await client.connect();
    closers.push(() => client.destroy());
    const registry = new RedisSessionRegistry({ client, prefix: `${fleet}:session:` });
    const limits = { idleMs: 60_000, maxPerPrincipal: 10, now: Date.now() };
    const heavy = {
      ...aRecord,
      clientCapabilities: { experimental: { blob: { data: "x".repeat(MAX_SESSION_FACTS_BYTES) } } },
    };
    await expect(registry.create("s1", heavy, limits)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/beyond this server's limit/),
    });
    expect(await keysOf(client, fleet)).toEqual([]);
    await registry.create("s1", aRecord, limits);
    const subscribed = { ...aRecord, subscriptions: [`test://${"u".repeat(MAX_SESSION_FACTS_BYTES)}`] };
    await expect(registry.save("s1", subscribed, limits)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(await registry.load("s1", "p", limits)).toEqual(aRecord);
  });

  describe("against a Redis with maxmemory and noeviction", () => {
    let capped: RedisServer;
    beforeAll(async () => {
      capped = await RedisServer.start();
    }, 120_000);
    afterAll(async () => {
      await capped?.stop();
    });

    it("many large initializes are refused cleanly and leave used_memory under the cap", async () => {
      const fleet = fleetName();
      const a = await instance(fleet, 100, capped.url);
      const cap = 20 * 1024 * 1024;
      await a.client.sendCommand(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
      await a.client.sendCommand(["CONFIG", "SET", "maxmemory", String(cap)]);
      try {
        // 15 times 3.6 MB: 54 MB offered to a store capped at 20 MiB.
        const statuses: number[] = [];
        for (let id = 1; id <= 15; id++) {
          statuses.push((await rawPost(a.url, oversizedInitialize(id))).status);
        }
        expect(statuses).toEqual(Array(15).fill(400));
        expect(await usedMemory(a.client)).toBeLessThan(cap);
        expect(await keysOf(a.client, fleet)).toEqual([]);
        await rawSession(a.url);
      } finally {
        await a.client.sendCommand(["CONFIG", "SET", "maxmemory", "0"]);
      }
    });

    it("a session created while Redis is over maxmemory writes nothing and fails", async () => {
      const fleet = fleetName();
      const client = createClient({ url: capped.url });
      await client.connect();
      closers.push(() => client.destroy());
      const registry = new RedisSessionRegistry({ client, prefix: `${fleet}:session:` });
      const limits = { idleMs: 60_000, maxPerPrincipal: 10, now: Date.now() };
      await client.sendCommand(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
      // Below what Redis already uses: every write that can grow memory is refused from here on.
      await client.sendCommand(["CONFIG", "SET", "maxmemory", "1"]);
      try {
        await expect(registry.create("s1", aRecord, limits)).rejects.toThrow(/OOM/);
        expect(await keysOf(client, fleet)).toEqual([]);
      } finally {
        await client.sendCommand(["CONFIG", "SET", "maxmemory", "0"]);
      }
      await registry.create("s1", aRecord, limits);
      expect(await keysOf(client, fleet)).toHaveLength(2);
    });
  });
});
