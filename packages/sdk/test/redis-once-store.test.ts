import { fileURLToPath } from "node:url";
import { RedisServer } from "@roundtrip/test-services";
import { describe, expect, it } from "vitest";
import { RedisOnceStore } from "../src/server/fleet/redis/redis-once-store.js";
import { connectedClient } from "../src/server/fleet/redis/test-support/connected-client.js";
import {
  CONFIRMED,
  deploy,
  errorOf,
  FLEET_KEYS,
  FROZEN_ERROR,
  firstRound,
  type OnceServer,
  resultOf,
  send,
  serversClosedAfterEach,
  textOf,
  until,
} from "../src/server/mcp-server/test-support/once.js";
import { recordingLogger } from "../src/test-support/in-process.js";
import { AskingChild } from "./support/asking-child.js";
import { closersAfterEach, redisServerPerFile } from "./support/redis-server.js";

const redis = redisServerPerFile();
const start = serversClosedAfterEach();
const closers = closersAfterEach();

const DECLINED = { confirm: { action: "accept", content: { confirm: false } } };

type Client = Awaited<ReturnType<typeof connectedStore>>["client"];

/** Every key under `prefix`, by SCAN. */
async function keysUnder(client: Client, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = (await client.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`])) as [
      string,
      string[],
    ];
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  return keys;
}

/** What `ms` passing would do to the keys under `prefix`: each TTL drops by it, and what runs out is gone. */
async function ageKeys(client: Client, prefix: string, ms: number): Promise<void> {
  for (const key of await keysUnder(client, prefix)) {
    const left = await client.pTTL(key);
    if (left < 0) continue;
    if (left <= ms) await client.del(key);
    else await client.pExpire(key, left - ms);
  }
}

/** A store under `prefix`, on a client of its own as the README advises. */
async function connectedStore(prefix = `test:${Math.random().toString(36).slice(2)}:`) {
  const client = await connectedClient(redis().url);
  closers.push(() => client.destroy());
  return { client, prefix, store: new RedisOnceStore({ client, prefix, timeoutMs: 1000 }) };
}

describe("RedisOnceStore behind McpServer, with a real redis-server, over HTTP", () => {
  it("a replayed completing round gets the first outcome, then the frozen error once it expires", async () => {
    const { client, prefix, store } = await connectedStore();
    const { url, counters } = await start({ store, outcomeTtl: 60 });
    const retry = await firstRound(url);
    const first = resultOf(await deploy(url, retry));
    expect(textOf(first)).toBe("deployed web (run 1)");
    expect(resultOf(await deploy(url, retry))).toEqual(first);
    // The outcome lives 60 s in Redis, so no slow step outlasts it; those 60 s pass for Redis at once.
    await ageKeys(client, prefix, 60_000);
    expect(errorOf(await deploy(url, retry))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(1);
  });

  it("keeps a round under two hash-tagged keys that expire with the flow and the outcome", async () => {
    const { client, prefix, store } = await connectedStore();
    const { url } = await start({ store, outcomeTtl: 60 });
    resultOf(await deploy(url, await firstRound(url)));
    // Round keys only: the readiness probe's `${prefix}ready` is no round's.
    const keys = (await client.keys(`${prefix}{*`)).sort();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(new RegExp(`^${prefix}\\{[\\w-]{22}\\.[\\w-]{22}\\}$`));
    expect(keys[1]).toBe(`${keys[0]}:outcome`);
    expect(await client.get(keys[0] as string)).toBe("done");
    // The round: until its flow is over (the flow's 3600 s, the state's 600 s, a minute of clock
    // skew, from the first round); the outcome: its 60 s.
    expect(await client.pTTL(keys[0] as string)).toBeGreaterThan(4_200_000);
    expect(await client.pTTL(keys[1] as string)).toBeLessThanOrEqual(60_000);
  });

  it("keeps every round of a flow while any of its states can open, even one a repeat sealed afresh", async () => {
    const { client, prefix, store } = await connectedStore();
    const firstMint = 1_800_000_000;
    let now = firstMint;
    const { url, counters } = await start({ store, now: () => now });
    // The scenario's time passes for Redis too: every TTL drops by it, and what runs out is gone.
    const advance = async (seconds: number) => {
      now += seconds;
      await ageKeys(client, prefix, seconds * 1000);
    };
    // Every state of the flow opens until at most its last possible round (first mint + the flow's
    // 3600 s) plus the state's 600 s: each round's key must outlive that, whatever Redis's clock did.
    const roundsCoverTheFlow = async () => {
      const rounds = (await keysUnder(client, prefix)).filter((key) => !key.endsWith(":outcome"));
      expect(rounds.length).toBeGreaterThan(0);
      for (const key of rounds) {
        expect(await client.pTTL(key)).toBeGreaterThanOrEqual((firstMint + 3600 + 600 - now) * 1000);
      }
      return rounds.length;
    };
    const first = await firstRound(url);
    const asking = { ...first, inputResponses: DECLINED };
    await advance(10);
    const again = resultOf(await deploy(url, asking));
    const completing = { ...first, requestState: again.requestState, inputResponses: CONFIRMED };
    await advance(10);
    expect(textOf(resultOf(await deploy(url, completing)))).toBe("deployed web (run 1)");
    expect(await roundsCoverTheFlow()).toBe(2);
    await advance(280);
    const resealed = resultOf(await deploy(url, asking));
    expect(resealed.resultType).toBe("input_required");
    await advance(390);
    expect(await roundsCoverTheFlow()).toBe(2);
    expect(errorOf(await deploy(url, { ...completing, requestState: resealed.requestState }))).toEqual(
      FROZEN_ERROR,
    );
    expect(counters.deploys).toBe(1);
  });

  it("keeps outcomes sealed, and refuses a repeat whose outcome was moved from another round", async () => {
    const { client, prefix, store } = await connectedStore();
    const logger = recordingLogger();
    const { url, counters } = await start({ store, logger });
    const outcomes = async () => (await keysUnder(client, prefix)).filter((key) => key.endsWith(":outcome"));
    const one = await firstRound(url);
    expect(textOf(resultOf(await deploy(url, one)))).toBe("deployed web (run 1)");
    const [oneOutcome] = await outcomes();
    const sealed = await client.get(oneOutcome as string);
    expect(sealed).not.toContain("deployed web");
    expect(() => JSON.parse(sealed as string)).toThrow();

    // A second flow's round, completed: its outcome replaced by the first flow's.
    const two = await firstRound(url);
    expect(textOf(resultOf(await deploy(url, two)))).toBe("deployed web (run 2)");
    const twoOutcome = (await outcomes()).find((key) => key !== oneOutcome) as string;
    await client.set(twoOutcome, sealed as string, { KEEPTTL: true });
    expect(errorOf(await deploy(url, two))).toEqual(FROZEN_ERROR);
    expect(textOf(resultOf(await deploy(url, one)))).toBe("deployed web (run 1)");
    expect(counters.deploys).toBe(2);
    const refusal = logger.records.find((record) => record.level === "warn");
    expect(refusal?.message).toMatch(/stored outcome did not open/);
    expect(JSON.stringify(logger.records)).not.toMatch(/deployed|v1\./);
  });

  it("five concurrent copies of the completing round run the handler exactly once", async () => {
    const { store } = await connectedStore();
    let counters: OnceServer["counters"] | undefined;
    const server = await start({ store, gate: () => until(() => (counters?.arrivals ?? 0) >= 6) });
    counters = server.counters;
    const retry = await firstRound(server.url);
    const replies = await Promise.all(Array.from({ length: 5 }, () => deploy(server.url, retry)));
    expect(server.counters.deploys).toBe(1);
    for (const reply of replies) expect(textOf(resultOf(reply))).toBe("deployed web (run 1)");
  });

  it("a fleet of two instances sharing the store: a round consumed on one is answered from the store on the other", async () => {
    const { client, store: storeA, prefix } = await connectedStore();
    const { store: storeB } = await connectedStore(prefix);
    // Outcomes live 60 s, so no slow step outlasts one; the test passes that time for Redis at once.
    const a = await start({ store: storeA, outcomeTtl: 60 });
    const b = await start({ store: storeB, outcomeTtl: 60 });
    const retry = await firstRound(a.url);
    const first = resultOf(await deploy(a.url, retry));
    expect(resultOf(await deploy(b.url, retry))).toEqual(first);
    await ageKeys(client, prefix, 60_000);
    expect(errorOf(await deploy(b.url, retry))).toEqual(FROZEN_ERROR);
    expect(a.counters.deploys + b.counters.deploys).toBe(1);

    // Copies split across the fleet at once: still one run.
    const fresh = await firstRound(b.url);
    const copies = await Promise.all([a, b, a, b, a].map((server) => deploy(server.url, fresh)));
    expect(a.counters.deploys + b.counters.deploys).toBe(2);
    const texts = new Set(copies.map((reply) => textOf(resultOf(reply))));
    expect(texts.size).toBe(1);
  });

  it("fails closed while Redis is down, other tools keep working, and recovers when it is back", async () => {
    const { store } = await connectedStore();
    const { url, counters } = await start({ store });
    const retry = await firstRound(url);
    expect(await store.ready()).toBe(true);
    await redis().kill();
    try {
      await until(async () => !(await store.ready()));
      for (const reply of [await deploy(url, retry), await deploy(url)]) {
        const error = errorOf(reply);
        expect(error.code).toBe(-32603);
        expect(error.message).toMatch(/once-store is unavailable.*was not run.*check the once-store/);
      }
      expect(counters.deploys).toBe(0);
      const echoed = resultOf(await send(url, "tools/call", { name: "echo", arguments: { text: "up" } }));
      expect(textOf(echoed)).toBe("up");
    } finally {
      await redis().start();
    }
    await until(() => store.ready(), 10_000);
    expect(textOf(resultOf(await deploy(url, retry)))).toBe("deployed web (run 1)");
    expect(counters.deploys).toBe(1);
  });

  it("refuses a flow older than the flow-lifetime cap", async () => {
    const { store } = await connectedStore();
    let now = 1_800_000_000;
    const { url, counters } = await start({ store, now: () => now, flowLifetime: 120 });
    const retry = await firstRound(url);
    now += 121;
    expect(errorOf(await deploy(url, retry))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(0);
  });
});

describe("RedisOnceStore rounds whose holder or replicas fail, with real processes", () => {
  it("an instance SIGKILLed after its handler started: retries hear in progress, then that the outcome is unknown", async () => {
    const { client, prefix, store } = await connectedStore();
    // The holder's lease outlasts any stall of the busy child between taking it and starting the round;
    // once the child is killed, the test brings the lease's end forward in Redis.
    const child = await AskingChild.start(
      {
        ONCE_REDIS_URL: redis().url,
        ONCE_PREFIX: prefix,
        ONCE_LEASE: "60",
        ONCE_KEY: FLEET_KEYS[0] as string,
      },
      fileURLToPath(new URL("./support/once-server-main.ts", import.meta.url)),
    );
    closers.push(() => child.stop());
    const { url, counters } = await start({ store, wait: 0.05, lease: 1 });
    const retry = await firstRound(child.url);
    const from = child.mark();
    void deploy(child.url, retry).catch(() => undefined);
    await child.waitFor((line) => line.msg === "deploying", "that it entered the handler", from);
    await child.stop();
    // The killed holder's lease holds the round: a retry hears it is in progress.
    expect(errorOf(await deploy(url, retry)).data).toMatchObject({ reason: "round_in_progress" });
    // Then the lease lapses on Redis's clock, which nothing renews any more.
    const [leaseKey, ...others] = await client.keys(`${prefix}{*}:lease`);
    expect(others).toEqual([]);
    await client.pExpire(leaseKey as string, 1);
    const answers = new Set<string>();
    await until(async () => {
      const error = errorOf(await deploy(url, retry));
      answers.add(String((error.data as { reason?: string })?.reason));
      return answers.has("round_outcome_unknown");
    }, 20_000);
    expect([...answers].every((reason) => /^round_(in_progress|outcome_unknown)$/.test(reason))).toBe(true);
    expect(errorOf(await deploy(url, retry)).message).toMatch(
      /effect happened is unknown.*will not be run again/,
    );
    expect(counters.deploys).toBe(0);
  }, 180_000);

  it("with replicaAcks, a write no replica acknowledged fails the round closed; its retry runs it once the lease lapses", async () => {
    // The same program as the primary: Valkey's RDB format is one redis-server cannot load.
    const replica = await RedisServer.start({ program: redis().program });
    closers.push(() => replica.stop());
    const replicaClient = await connectedClient(replica.url);
    closers.push(() => replicaClient.destroy());
    // A full sync on disk would leave an RDB file in the working directory: both sides sync over the socket.
    const client = await connectedClient(redis().url);
    closers.push(() => client.destroy());
    await client.sendCommand(["CONFIG", "SET", "repl-diskless-sync", "yes", "repl-diskless-sync-delay", "0"]);
    await replicaClient.sendCommand(["CONFIG", "SET", "repl-diskless-load", "on-empty-db"]);
    await replicaClient.sendCommand(["REPLICAOF", "127.0.0.1", String(redis().port)]);
    // In sync once the replica acknowledges a write made after it connected (it loads the primary's data first).
    await until(async () => {
      await client.set("acks:synced", "1");
      return Number(await client.sendCommand(["WAIT", "1", "100"])) === 1;
    }, 20_000);
    const store = new RedisOnceStore({
      client,
      prefix: "acks:",
      // Generous: a loaded machine delays a healthy replica's ack; only the frozen one must miss it.
      replicaAcks: { replicas: 1, timeoutMs: 5_000 },
    });
    // Its leases outlast the replica's slowest healthy ack, which a lease waits for before it starts
    // its round; only the instance whose lease the frozen replica leaves unconfirmed has a brief one.
    const { url, counters } = await start({ store, wait: 0.05, lease: 60 });
    const brief = await start({ store, wait: 0.05, lease: 1 });
    const deploys = () => counters.deploys + brief.counters.deploys;
    expect(textOf(resultOf(await deploy(url, await firstRound(url))))).toBe("deployed web (run 1)");

    const done = await firstRound(url);
    const first = resultOf(await deploy(url, done));
    const retry = await firstRound(url);
    replica.freeze();
    try {
      const error = errorOf(await deploy(brief.url, retry));
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/did not confirm.*only 0 of the 1 Redis replicas.*'deploy' was not run/);
      // A repeat of a completed round writes nothing: it gets its outcome, replicas or not.
      expect(resultOf(await deploy(url, done))).toEqual(first);
      expect(deploys()).toBe(2);
    } finally {
      replica.thaw();
    }
    // The lease may stand though it was not confirmed: not started, it goes to the next attempt.
    await until(async () => "result" in ((await deploy(url, retry)).messages.at(-1) as object), 20_000);
    expect(textOf(resultOf(await deploy(url, retry)))).toBe("deployed web (run 3)");
    expect(deploys()).toBe(3);
  }, 180_000);
});

describe("RedisOnceStore", () => {
  it("a plain claim (DPoP's) is atomic and released only by its token", async () => {
    const { store } = await connectedStore();
    expect(await store.claim("f.r", "t1", 10_000)).toBe(true);
    expect(await store.claim("f.r", "t2", 10_000)).toBe(false);
    const plain = { status: "pending", started: true, leaseMs: 0, holder: "", attempt: 1 };
    expect(await store.read("f.r")).toEqual(plain);
    await store.release("f.r", "t2");
    expect(await store.read("f.r")).toEqual(plain);
    await store.release("f.r", "t1");
    expect(await store.read("f.r")).toEqual({ status: "free" });
    expect(() => new RedisOnceStore({} as never)).toThrow(/needs \{ client \}/);
    expect(
      () => new RedisOnceStore({ client: {} as never, replicaAcks: { replicas: 0, timeoutMs: 1 } }),
    ).toThrow(/needs/);
  });

  it("leases on Redis's clock: a lapsed lease not started goes to the next attempt, a started one is orphaned", async () => {
    const { client, prefix, store } = await connectedStore();
    const lease = (token: string, leaseMs = 60_000) => ({ token, holder: "a/1", leaseMs, ttlMs: 60_000 });
    // 50 ms of Redis time: Redis expires the lease key, no instance's clock takes part.
    expect(await store.lease("f.r", lease("t1", 50))).toEqual({ leased: true, attempt: 1 });
    await until(async () => (await store.read("f.r")).status === "orphaned");
    expect(await store.read("f.r")).toEqual({
      status: "orphaned",
      started: false,
      holder: "a/1",
      attempt: 1,
    });
    expect(await store.lease("f.r", lease("t2"))).toEqual({ leased: true, attempt: 2 });
    expect(await store.start("f.r", "t1", 60_000)).toBe(false);
    expect(await store.renew("f.r", "t1", 60_000)).toBe(false);
    expect(await store.start("f.r", "t2", 50)).toBe(true);
    await until(async () => (await store.read("f.r")).status === "orphaned");
    const orphaned = { status: "orphaned", started: true, holder: "a/1", attempt: 2 };
    expect(await store.lease("f.r", lease("t3"))).toEqual({ leased: false, record: orphaned });
    // The holder, only slow, still records its outcome; the lease key goes with it.
    await store.complete("f.r", "t2", "x", { outcomeMs: 10_000, consumedMs: 60_000 });
    expect(await store.read("f.r")).toEqual({ status: "done", outcome: "x" });
    expect(await client.exists(`${prefix}{f.r}:lease`)).toBe(0);
    const live = await store.lease("g.r", lease("t"));
    expect(live).toEqual({ leased: true, attempt: 1 });
    expect(await store.lease("g.r", lease("u"))).toMatchObject({
      leased: false,
      record: { status: "pending", started: false, holder: "a/1", attempt: 1 },
    });
  });
  it("sends its scripts by digest, and whole to a Redis that lost them (SCRIPT FLUSH, a restart)", async () => {
    const { client, store } = await connectedStore();
    const lease = { token: "t1", holder: "a/1", leaseMs: 60_000, ttlMs: 60_000 };
    await client.sendCommand(["SCRIPT", "FLUSH"]);
    expect(await store.lease("f.r", lease)).toEqual({ leased: true, attempt: 1 });
    const before = await commandCalls(client);
    // The lease's script is cached now (its first EVALSHA fell back to EVAL): the read sends its digest.
    expect(await store.read("f.r")).toMatchObject({ status: "pending", started: false });
    const after = await commandCalls(client);
    expect([delta(before, after, "evalsha"), delta(before, after, "eval")]).toEqual([1, 0]);
    expect(await store.start("f.r", "t1", 60_000)).toBe(true);
    await store.complete("f.r", "t1", "x", { outcomeMs: 10_000, consumedMs: 60_000 });
    await client.sendCommand(["SCRIPT", "FLUSH"]);
    expect(await store.read("f.r")).toEqual({ status: "done", outcome: "x" });
  });
});

/** The store's real client, the name of each command it sends noted in `sent` as it leaves. */
function noting<C extends object>(client: C, sent: string[]): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== "sendCommand") return Reflect.get(target, property, receiver);
      return (args: string[], ...rest: unknown[]) => {
        sent.push(args[0] ?? "");
        return (Reflect.get(target, "sendCommand") as (...all: unknown[]) => unknown).call(
          target,
          args,
          ...rest,
        );
      };
    },
  });
}

describe("what a once-round costs Redis", () => {
  it("a two-round flow sends four commands: the readiness write, then its round's lease, start mark and outcome", async () => {
    const { client, prefix } = await connectedStore();
    const sent: string[] = [];
    const counted = noting(client, sent);
    const store = new RedisOnceStore({ client: counted, prefix, timeoutMs: 1000 });
    const { url, counters } = await start({ store });
    // Warm: every script is cached on this Redis before the count starts.
    expect(textOf(resultOf(await deploy(url, await firstRound(url))))).toMatch(/^deployed web/);
    sent.length = 0;
    const before = await commandCalls(client);
    const retry = await firstRound(url);
    expect(textOf(resultOf(await deploy(url, retry)))).toMatch(/^deployed web/);
    const after = await commandCalls(client);
    expect(sent).toEqual(["SET", "EVALSHA", "EVALSHA", "EVALSHA"]);
    // Redis's own count agrees: three scripts run by digest, none sent whole.
    expect([delta(before, after, "evalsha"), delta(before, after, "eval")]).toEqual([3, 0]);
    expect(counters.deploys).toBe(2);
  });

  it("first rounds that ask while a readiness write is on its way share it: one write for them all", async () => {
    const { client, prefix } = await connectedStore();
    const sent: string[] = [];
    const counted = noting(client, sent);
    const store = new RedisOnceStore({ client: counted, prefix, timeoutMs: 1000 });
    expect(await Promise.all([store.ready(), store.ready(), store.ready()])).toEqual([true, true, true]);
    expect(sent).toEqual(["SET"]);
    // Once answered, the next asks afresh.
    expect(await store.ready()).toBe(true);
    expect(sent).toEqual(["SET", "SET"]);
  });
});

/** Calls per command since the server started, from INFO commandstats (a script's own calls included). */
async function commandCalls(client: Client): Promise<Map<string, number>> {
  const info = String(await client.sendCommand(["INFO", "commandstats"]));
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(match[1] ?? "", Number(match[2]));
  return calls;
}

function delta(before: Map<string, number>, after: Map<string, number>, name: string): number {
  return (after.get(name) ?? 0) - (before.get(name) ?? 0);
}
