import { duringStall, RedisServer, redisStalls } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RedisDeadlineError, sendWithDeadline } from "../src/server/fleet/redis/command-deadline.js";
import { RedisNotificationBus } from "../src/server/fleet/redis/redis-notification-bus.js";
import { RedisOnceStore } from "../src/server/fleet/redis/redis-once-store.js";
import { RedisSessionRegistry } from "../src/server/fleet/redis/redis-session-registry.js";
import { connectedClient } from "../src/server/fleet/redis/test-support/connected-client.js";
import type { SessionRecord } from "../src/server/fleet/session-registry.js";
import { fleetCodec } from "../src/server/fleet/test-support/fleet-codec.js";
import {
  deploy,
  errorOf,
  firstRound,
  resultOf,
  send,
  serversClosedAfterEach,
  textOf,
  until,
} from "../src/server/mcp-server/test-support/once.js";
import { closersAfterEach } from "./support/redis-server.js";

// Far from anything the machine's speed decides: each stall below lasts until the test ends it. Only
// calls made during a stall are held to it; those made while Redis answers have STALL_TEST_MS.
const DEADLINE_MS = 400;
const MISSED_DEADLINE = /^Redis did not answer within 400 ms/;
const STALL_TEST_MS = 60_000;

let redis: RedisServer;
let primary: RedisServer;
let admin: Awaited<ReturnType<typeof connectedClient>>;
const start = serversClosedAfterEach();
const closers = closersAfterEach();

beforeAll(async () => {
  [redis, primary] = await Promise.all([RedisServer.start(), RedisServer.start()]);
  admin = await connectedClient(redis.url);
}, 120_000);

afterAll(async () => {
  admin?.destroy();
  await redis?.stop();
  await primary?.stop();
});

async function storeClient() {
  const client = await connectedClient(redis.url);
  closers.push(() => client.destroy());
  return client;
}

const unique = () => `stall:${Math.random().toString(36).slice(2)}`;

const stalls = redisStalls(() => ({ redis, primary, command: (args) => admin.sendCommand(args) }));

const RECORD: SessionRecord = {
  principal: "p",
  protocolVersion: "2025-11-25",
  clientCapabilities: {},
  initialized: true,
  subscriptions: [],
};
const LIMITS = { idleMs: 60_000, maxPerPrincipal: 10, now: Date.now() };

describe("Redis stores against a Redis that stalls", () => {
  it.each([stalls.frozen, stalls.writesPaused])(
    "while Redis is $name, every store call rejects at its deadline, saying so",
    async (stall) => {
      const client = await storeClient();
      const prefix = unique();
      const once = new RedisOnceStore({ client, prefix: `${prefix}:once:`, timeoutMs: DEADLINE_MS });
      const sessions = new RedisSessionRegistry({
        client,
        prefix: `${prefix}:session:`,
        timeoutMs: DEADLINE_MS,
      });
      const bus = new RedisNotificationBus({
        client,
        channel: `${prefix}:bus`,
        codec: fleetCodec(),
        timeoutMs: DEADLINE_MS,
      });
      closers.push(() => bus.close());
      await bus.ready();
      const patient = new RedisSessionRegistry({
        client,
        prefix: `${prefix}:session:`,
        timeoutMs: STALL_TEST_MS,
      });
      await patient.create("s1", RECORD, LIMITS);
      await duringStall(stall, async () => {
        const ttl = { outcomeMs: 60_000, consumedMs: 60_000 };
        const outcomes = await Promise.allSettled([
          once.claim("f.r", "t", 60_000),
          once.complete("f.r", "t", "outcome", ttl),
          once.release("f.r", "t"),
          ...(stall === stalls.frozen ? [once.read("f.r")] : []),
          bus.publish({ type: "session-ended", session: "s1" }),
          sessions.create("s2", RECORD, LIMITS),
          sessions.load("s1", RECORD.principal, LIMITS),
          sessions.save("s1", RECORD, LIMITS),
          sessions.remove("s1", RECORD.principal),
        ]);
        for (const outcome of outcomes) {
          expect(outcome.status).toBe("rejected");
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(RedisDeadlineError);
          expect((outcome as PromiseRejectedResult).reason.message).toMatch(MISSED_DEADLINE);
        }
        expect(await once.ready()).toBe(false);
      });
    },
    STALL_TEST_MS,
  );

  it.each(stalls.all)(
    "while Redis is $name, a once-tool runs nothing: its first round and its completion are refused, and other tools answer",
    async (stall) => {
      const client = await storeClient();
      const prefix = unique();
      const store = new RedisOnceStore({ client, prefix, timeoutMs: DEADLINE_MS });
      const server = await start({ store });
      let charges = 0;
      server.mcp.tool("charge", { once: true }, () => {
        charges += 1;
        return "charged";
      });
      // The first round, asked while Redis answers, goes to an instance of the fleet without the deadline.
      const patient = await start({
        store: new RedisOnceStore({ client, prefix, timeoutMs: STALL_TEST_MS }),
      });
      const completing = await firstRound(patient.url);
      await duringStall(stall, async () => {
        expect(await store.ready()).toBe(false);
        const refused = [
          await deploy(server.url, completing),
          await send(server.url, "tools/call", { name: "charge", arguments: {} }),
        ];
        for (const reply of refused) {
          const error = errorOf(reply);
          expect(error.code).toBe(-32603);
          expect(error.message).toMatch(/once-store is unavailable, so '(deploy|charge)' .* was not run/);
        }
        const echoed = resultOf(
          await send(server.url, "tools/call", { name: "echo", arguments: { text: "up" } }),
        );
        expect(textOf(echoed)).toBe("up");
      });
      expect([charges, server.counters.deploys]).toEqual([0, 0]);
    },
    STALL_TEST_MS,
  );

  it.each([stalls.frozen, stalls.writesPaused])(
    "after Redis was $name, the lease it took past its deadline holds the round for nobody: a repeat hears it is in progress, and it runs once the lease lapses",
    async (stall) => {
      const client = await storeClient();
      const prefix = unique();
      // The lease is long, so it holds however slowly the repeat after the stall comes; the test then
      // brings its end forward in Redis. Only the call made during the stall is held to the deadline.
      const lease = 60;
      const server = await start({
        store: new RedisOnceStore({ client, prefix, timeoutMs: DEADLINE_MS }),
        wait: 0.5,
        lease,
      });
      const patient = await start({
        store: new RedisOnceStore({ client, prefix, timeoutMs: STALL_TEST_MS }),
        wait: 0.5,
        lease,
      });
      const completing = await firstRound(patient.url);
      await duringStall(stall, async () => {
        expect(errorOf(await deploy(server.url, completing)).code).toBe(-32603);
      });
      // The late lease went out on the store's one connection before this repeat's, so it is in place.
      expect(errorOf(await deploy(patient.url, completing)).data).toMatchObject({
        reason: "round_in_progress",
      });
      expect(server.counters.deploys + patient.counters.deploys).toBe(0);
      // Its handler never started: once Redis lets the lease lapse, the round runs, once.
      const [leaseKey, ...others] = (await client.keys(`${prefix}{*}:lease`)) as string[];
      expect(others).toEqual([]);
      await client.pExpire(leaseKey as string, 1);
      await until(
        async () => "result" in ((await deploy(patient.url, completing)).messages.at(-1) as object),
      );
      expect(server.counters.deploys + patient.counters.deploys).toBe(1);
    },
    STALL_TEST_MS,
  );

  it(
    "a command still queued behind one Redis does not read is dropped at its deadline, and never reaches Redis",
    async () => {
      const client = await storeClient();
      const prefix = unique();
      const once = new RedisOnceStore({ client, prefix, timeoutMs: DEADLINE_MS });
      await duringStall(stalls.frozen, async () => {
        // Far more than the kernel's socket buffers take: the claim after it stays in node-redis's queue.
        const big = sendWithDeadline(client, ["SET", `${prefix}big`, "x".repeat(64 * 2 ** 20)], DEADLINE_MS);
        const outcomes = await Promise.allSettled([big, once.claim("f.r", "t", 60_000)]);
        for (const outcome of outcomes) {
          expect(outcome.status).toBe("rejected");
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(RedisDeadlineError);
        }
      });
      // Read on the same connection, so after whatever of the big SET it sent: Redis takes in those
      // 64 MiB first, which on a busy machine can outlast DEADLINE_MS. Only the stall is on a deadline.
      const settled = new RedisOnceStore({ client, prefix, timeoutMs: STALL_TEST_MS });
      expect(await settled.read("f.r")).toEqual({ status: "free" });
    },
    STALL_TEST_MS,
  );

  it("bounds a command with its own timer alone: node-redis's timeout, an AbortSignal.timeout per command, is off", async () => {
    const client = await storeClient();
    const timeouts = vi.spyOn(AbortSignal, "timeout");
    try {
      expect(await sendWithDeadline(client, ["PING"], STALL_TEST_MS)).toBe("PONG");
      expect(timeouts).not.toHaveBeenCalled();
    } finally {
      timeouts.mockRestore();
    }
  });
});
