import { RedisCluster, RedisSentinelGroup, redisCommand } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BusEvent } from "../src/server/fleet/notification-bus.js";
import {
  type RedisBusClient,
  RedisNotificationBus,
} from "../src/server/fleet/redis/redis-notification-bus.js";
import { RedisOnceStore } from "../src/server/fleet/redis/redis-once-store.js";
import { RedisSessionRegistry } from "../src/server/fleet/redis/redis-session-registry.js";
import {
  connectedCluster,
  connectedSentinel,
} from "../src/server/fleet/redis/test-support/connected-client.js";
import { fleetCodec } from "../src/server/fleet/test-support/fleet-codec.js";
import {
  deploy,
  firstRound,
  resultOf,
  serversClosedAfterEach,
  textOf,
  until,
} from "../src/server/mcp-server/test-support/once.js";
import { recordingLogger } from "../src/test-support/in-process.js";
import { closersAfterEach } from "./support/redis-server.js";

const start = serversClosedAfterEach();
const closers = closersAfterEach();
const unique = () => Math.random().toString(36).slice(2);
const LIMITS = { idleMs: 60_000, maxPerPrincipal: 2, now: 0 };

type Client = RedisBusClient & { destroy(): unknown };
type Connect = () => Promise<Client>;

/** A client of the topology, closed after the test. */
async function opened(connect: Connect) {
  const client = await connect();
  closers.push(() => client.destroy());
  return client;
}

async function openedBus(connect: Connect) {
  const bus = new RedisNotificationBus({
    client: await opened(connect),
    channel: "roundtrip:bus:topologies",
    codec: fleetCodec(),
    logger: recordingLogger(),
  });
  closers.push(() => bus.close());
  await bus.ready();
  const heard: BusEvent[] = [];
  bus.subscribe((event) => heard.push(event));
  return { bus, heard };
}

/** A lease request for one attempt, held by "test". */
function lease(token: string, ms = 10_000) {
  return { token, holder: "test", leaseMs: ms, ttlMs: ms };
}

/** The once store, the bus and the session registry, each given a client of one topology. */
function fleetScenarios(connect: Connect) {
  it("the once store claims, completes, releases and reads, and is ready", async () => {
    const store = new RedisOnceStore({ client: await opened(connect), prefix: `t:${unique()}:` });
    expect(await store.ready()).toBe(true);
    expect(await store.lease("f.r", lease("t1"))).toEqual({ leased: true, attempt: 1 });
    expect(await store.lease("f.r", lease("t2"))).toMatchObject({
      leased: false,
      record: { status: "pending" },
    });
    expect(await store.start("f.r", "t1", 10_000)).toBe(true);
    expect(await store.read("f.r")).toMatchObject({
      status: "pending",
      started: true,
      holder: "test",
      attempt: 1,
    });
    await store.complete("f.r", "t1", "x", { outcomeMs: 10_000, consumedMs: 10_000 });
    expect(await store.read("f.r")).toEqual({ status: "done", outcome: "x" });
    expect(await store.lease("g.r", lease("t"))).toEqual({ leased: true, attempt: 1 });
    await store.release("g.r", "t");
    expect(await store.read("g.r")).toEqual({ status: "free" });
    // DPoP's claims, without a lease, go the same way.
    expect(await store.claim("h.r", "t", 10_000)).toBe(true);
    expect(await store.claim("h.r", "t2", 10_000)).toBe(false);
  });

  it("a once flow on two instances runs its handler once, however its completing round is repeated", async () => {
    const prefix = `t:${unique()}:`;
    const a = await start({ store: new RedisOnceStore({ client: await opened(connect), prefix }) });
    const b = await start({ store: new RedisOnceStore({ client: await opened(connect), prefix }) });
    const retry = await firstRound(a.url);
    const first = resultOf(await deploy(a.url, retry));
    expect(textOf(first)).toBe("deployed web (run 1)");
    expect(resultOf(await deploy(b.url, retry))).toEqual(first);
    const fresh = await firstRound(b.url);
    const copies = await Promise.all([a, b, a, b, a].map((server) => deploy(server.url, fresh)));
    expect(new Set(copies.map((reply) => textOf(resultOf(reply)))).size).toBe(1);
    expect(a.counters.deploys + b.counters.deploys).toBe(2);
  });

  it("the bus carries an event from one instance to another, once", async () => {
    const a = await openedBus(connect);
    const b = await openedBus(connect);
    const event: BusEvent = { type: "session-ended", session: unique() };
    await a.bus.publish(event);
    await until(() => b.heard.length > 0);
    // Give a duplicate the time a delivery took to show up, then count.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.heard).toEqual([event]);
    expect(a.heard).toEqual([event]);
  });

  it("the session registry creates, loads, saves and removes, and holds the per-principal cap", async () => {
    const sessions = new RedisSessionRegistry({ client: await opened(connect), prefix: `s:${unique()}:` });
    const record = {
      principal: "alice",
      protocolVersion: "2025-06-18",
      clientCapabilities: {},
      initialized: false,
      subscriptions: [],
    };
    await sessions.create("one", record, LIMITS);
    await sessions.create("two", record, LIMITS);
    await expect(sessions.create("three", record, LIMITS)).rejects.toThrow(/2/);
    expect(await sessions.load("one", "alice", LIMITS)).toEqual(record);
    expect(await sessions.load("one", "bob", LIMITS)).toBeUndefined();
    await sessions.save("one", { ...record, initialized: true }, LIMITS);
    expect(await sessions.load("one", "alice", LIMITS)).toEqual({ ...record, initialized: true });
    await sessions.remove("one", "alice");
    expect(await sessions.load("one", "alice", LIMITS)).toBeUndefined();
    await sessions.create("three", record, LIMITS);
  });
}

/** `INFO errorstats` of one node, as `{ CROSSSLOT: 2, ... }`. */
async function errorStats(url: string): Promise<Record<string, number>> {
  const info = String(await redisCommand(url, ["INFO", "errorstats"]));
  return Object.fromEntries(
    [...info.matchAll(/^errorstat_(\w+):count=(\d+)/gm)].map(([, name, count]) => [name, Number(count)]),
  );
}

describe.each(["redis-server", "valkey-server"] as const)(
  "a Redis Cluster of three %s masters",
  (program) => {
    let cluster: RedisCluster;
    beforeAll(async () => {
      cluster = await RedisCluster.start({ program });
    });
    afterAll(() => cluster?.stop());
    const connect: Connect = async () => {
      const client: Client = await connectedCluster(cluster.urls);
      return client;
    };

    fleetScenarios(connect);

    it("sends every command of every store to one slot: keys on every master, 0 CROSSSLOT", async () => {
      const client = await opened(connect);
      const store = new RedisOnceStore({ client, prefix: `t:${unique()}:` });
      const sessions = new RedisSessionRegistry({ client, prefix: `s:${unique()}:` });
      const record = {
        principal: "",
        protocolVersion: "2025-06-18",
        clientCapabilities: {},
        initialized: false,
        subscriptions: [],
      };
      for (let i = 0; i < 30; i++) {
        const key = `${unique()}.${unique()}`;
        expect(await store.lease(key, lease("t", 60_000))).toEqual({ leased: true, attempt: 1 });
        expect(await store.start(key, "t", 60_000)).toBe(true);
        await store.renew(key, "t", 60_000);
        await store.complete(key, "t", "x", { outcomeMs: 60_000, consumedMs: 60_000 });
        expect(await store.read(key)).toEqual({ status: "done", outcome: "x" });
        await store.lease(`${key}.released`, lease("t", 60_000));
        await store.release(`${key}.released`, "t");
        await store.claim(`${key}.dpop`, "t", 60_000);
        const principal = `p${i}`;
        await sessions.create("s", { ...record, principal }, LIMITS);
        await sessions.load("s", principal, LIMITS);
        await sessions.save("s", { ...record, principal, initialized: true }, LIMITS);
        await sessions.remove("s", principal);
      }
      const held = await Promise.all(cluster.urls.map((url) => redisCommand(url, ["DBSIZE"])));
      expect(held.every((count) => Number(count) > 0)).toBe(true);
      const stats = await Promise.all(cluster.urls.map(errorStats));
      expect(stats.map((each) => each.CROSSSLOT ?? 0)).toEqual([0, 0, 0]);
    });
  },
);

describe.each(["redis-server", "valkey-server"] as const)(
  "Sentinel: a %s primary, its replica and one Sentinel",
  (program) => {
    let group: RedisSentinelGroup;
    beforeAll(async () => {
      group = await RedisSentinelGroup.start({ program });
    });
    afterAll(() => group?.stop());
    const connect: Connect = async () => {
      const client: Client = await connectedSentinel(group.name, group.sentinelNodes);
      return client;
    };

    fleetScenarios(connect);

    it("after a failover the store finds the new primary, keeps what was completed, and takes claims", async () => {
      const client = await opened(connect);
      const prefix = `t:${unique()}:`;
      const store = new RedisOnceStore({ client, prefix });
      expect(await store.lease("f.before", lease("t", 60_000))).toEqual({ leased: true, attempt: 1 });
      expect(await store.start("f.before", "t", 60_000)).toBe(true);
      await store.complete("f.before", "t", "x", { outcomeMs: 60_000, consumedMs: 60_000 });
      const before = await group.primary();
      const after = await group.failover();
      expect(after).not.toBe(before);
      await until(() => store.ready(), 30_000);
      expect(await store.read("f.before")).toEqual({ status: "done", outcome: "x" });
      expect(await store.lease("f.before", lease("t2", 60_000))).toMatchObject({ leased: false });
      expect(await store.claim("f.after", "t", 60_000)).toBe(true);
      // The claim is on the new primary, where the Sentinels now point.
      expect(await redisCommand(after.url, ["GET", `${prefix}{f.after}`])).toBe("pending:t");
    });
  },
);
