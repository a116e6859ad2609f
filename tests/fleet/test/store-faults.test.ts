import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import {
  type RedisProgram,
  RedisSentinelGroup,
  RedisServer,
  redisCommand,
  slowDisk,
  waitFor,
} from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultFigures, faultTable, tally } from "../src/fault-tally.js";
import { Fleet } from "../src/fleet.js";
import { runToExit } from "../src/instance.js";
import { type OnceFlow, OnceFlows, type Refusal } from "../src/once-flows.js";

/**
 * The fleet's store failing under the once-tools, with real processes only: three instances behind
 * nginx, one real redis-server or valkey-server (or a Sentinel-watched pair of them), and flows of
 * `deploy` (its approval given on its page) and `create_service` driven through each fault. Whatever
 * the fault, a round's effect happens at most once and a recorded approval is never lost: counted from
 * what the handlers logged, never from what the test expected.
 */
const PROGRAMS: readonly RedisProgram[] = ["redis-server", "valkey-server"];
/** Flows already running when the fault strikes, and flows started while it lasts, of each tool. */
const BEFORE = 3;
const DURING = 2;
/** Rounds answered before the fault strikes: it lands in the middle of the traffic. */
const MID_TRAFFIC = 6;
/**
 * How long each sync of the Redis killed mid-traffic lags: long enough that under `everysec` a sync is
 * running most of each second (so writes are held), short enough that under `always` a command queued
 * behind two syncs still meets the store's 2 s command deadline.
 */
const LAGGING_SYNC_MS = 700;
/** A lease a failed-over Redis kept without confirming it lapses in seconds, not the default 30. */
const LEASE_SECONDS = "3";
const RESULTS = fileURLToPath(new URL("../results/store-faults.json", import.meta.url));

let fleet: Fleet;
let keys: string[];
let alice: string;
const rows: FaultFigures[] = [];

beforeAll(async () => {
  useDummyAwsEnvironment();
  fleet = await Fleet.start(
    {
      size: 3,
      ttlSeconds: 120,
      // Every flow's rounds come from one address (nginx's), and retries through a fault add many.
      settings: { ONCE_LEASE_SECONDS: LEASE_SECONDS, RATE_LIMIT_ADDRESS_MAX: "10000000" },
    },
    async (starting) => {
      keys = [await starting.mintKey()];
      return keys;
    },
  );
  alice = await fleet.userToken("alice", "mcp:tools mcp:deploy");
}, 240_000);

afterAll(async () => {
  try {
    if (rows.length > 0) {
      console.log(`[fleet] store faults:\n${faultTable(rows)}`);
      await mkdir(dirname(RESULTS), { recursive: true });
      await writeFile(RESULTS, `${JSON.stringify({ writtenAt: new Date().toISOString(), rows }, null, 2)}\n`);
    }
  } finally {
    await fleet?.close();
  }
}, 180_000);

/** Every line the fleet's processes logged, every generation. */
const logLines = () => fleet.instances.flatMap((instance) => instance.lines());

const createdSoFar = () => logLines().filter((line) => line.msg === "service created").length;

const deployed = (release: string) =>
  logLines().filter((line) => line.msg === "release deployed" && line.release === release).length;

/**
 * Drives BEFORE flows of each once-tool, strikes with `fault` once MID_TRAFFIC rounds are answered,
 * starts DURING more of each while it lasts, waits until the flows have met it (`felt`, a refusal of
 * that kind), then `heals` and lets every flow finish. Returns the fault's figures, also kept for the table.
 */
async function throughFault(
  program: RedisProgram,
  name: string,
  fault: { strike(): Promise<void>; felt: Refusal; heal(): Promise<void> },
): Promise<{ row: FaultFigures; flows: OnceFlow[] }> {
  const driven = new OnceFlows(fleet.publicUrl, alice);
  const createdBefore = createdSoFar();
  const wave = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) => [
      driven.deploy(`${tag}-${i}`),
      driven.createService(`${tag}-svc-${i}`),
    ]).flat();
  // Waits for what the flows reached, or fails with what the fleet told them meanwhile.
  const until = (what: string, check: () => boolean) =>
    waitFor(what, async () => check(), 120_000).catch((error: Error) => {
      const told = [...new Set(driven.flows.flatMap((flow) => flow.messages))].slice(0, 5);
      throw new Error(`${error.message}; the fleet answered: ${JSON.stringify(told)}`);
    });
  const running = wave(BEFORE, "before");
  await until(`${MID_TRAFFIC} rounds answered`, () => driven.answered >= MID_TRAFFIC);
  // Refusals of that kind before the strike (a store made slow can refuse some) do not show it was felt.
  const feltSoFar = () => driven.refusals().filter((refusal) => refusal === fault.felt).length;
  const before = feltSoFar();
  await fault.strike();
  try {
    running.push(...wave(DURING, "during"));
    await until(`a round refused as ${fault.felt} since the strike`, () => feltSoFar() > before);
  } finally {
    await fault.heal();
  }
  // What the flows are doing, every few seconds, for a run that seems to stand still.
  const progress = setInterval(() => {
    const open = driven.flows.filter((flow) => flow.outcome === "").length;
    const last = driven.flows.flatMap((flow) => flow.messages).at(-1) ?? "";
    console.log(
      `[fleet] ${name}: ${driven.answered} rounds answered, ${open} flows open, last refusal: ${last}`,
    );
  }, 5_000);
  const flows = await Promise.all(running).finally(() => clearInterval(progress));
  // An effect is logged before its round is answered, but the line reaches this process through a
  // pipe: wait until every effect a flow was told of is in, then count everything there is.
  const told = flows.filter((flow) => flow.end === "answered");
  await waitFor(
    "the effects the flows were told of to be logged",
    async () =>
      told.every((flow) =>
        flow.tool === "deploy"
          ? flow.release === undefined || !flow.outcome.startsWith("Deployed") || deployed(flow.release) > 0
          : true,
      ) &&
      createdSoFar() - createdBefore >=
        told.filter((flow) => flow.tool === "create_service" && flow.outcome.startsWith("Created")).length,
  ).catch(() => {});
  const row = tally(program, name, flows, { deployed, created: createdSoFar() - createdBefore });
  rows.push(row);
  console.log(`[fleet] ${program}, ${name}: ${JSON.stringify(row)}`);
  return { row, flows };
}

/** The guarantee, exactly: no effect twice, no recorded approval lost, every flow ran or was told it did not. */
function expectHeld(row: FaultFigures, flows: readonly OnceFlow[]): void {
  const unexpected = flows.filter(
    (flow) => flow.end === "answered" && !/^(Deployed rel-|Created service )/.test(flow.outcome),
  );
  expect({ double: row.double, approvalsLost: row.approvalsLost, unexpected }).toEqual({
    double: 0,
    approvalsLost: 0,
    unexpected: [],
  });
  expect(row.ranOnce + row.endedUnanswered).toBe(row.flows);
  expect(row.refusedRounds).toBeGreaterThan(0);
}

describe.each(PROGRAMS)("once-flows through faults of a single %s with AOF", (program) => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await RedisServer.start({ program });
    await fleet.moveTo({ REDIS_URL: redis.url }, keys);
  }, 240_000);

  afterAll(() => redis?.stop());

  it("a graceful restart mid-traffic (same port, same folder): refused while away, then each once", async () => {
    const { row, flows } = await throughFault(program, "graceful restart (SIGTERM), AOF", {
      strike: () => redis.kill("SIGTERM"),
      felt: "unavailable",
      heal: () => redis.start(),
    });
    expectHeld(row, flows);
  });

  it("kill -9 mid-traffic while the disk lags, and a restart from the append-only file: refused while away, then each once", async () => {
    // Every sync lags from the first round on, as on a busy disk, so the kill lands right after rounds
    // whose writes Redis acknowledged while its syncs were still running: one that replied before
    // syncing (everysec) would lose some of them, a confirmed approval or a completed round among them.
    const disk = await slowDisk(redis.pid, LAGGING_SYNC_MS);
    try {
      const { row, flows } = await throughFault(program, "kill -9 (SIGKILL) while syncs lag, AOF", {
        strike: async () => {
          await redis.kill();
          await disk.end();
        },
        felt: "unavailable",
        heal: () => redis.start(),
      });
      expectHeld(row, flows);
    } finally {
      await disk.end();
    }
  });

  it("memory exhausted under noeviction: flows refused with a clear error, none run twice", async () => {
    const info = String(await redisCommand(redis.url, ["INFO", "memory"]));
    const used = Number(/used_memory:(\d+)/.exec(info)?.[1]);
    const { row, flows } = await throughFault(program, "maxmemory below use, noeviction", {
      // Below what it holds: every write that may grow memory is refused ("OOM command not allowed").
      strike: async () => {
        await redisCommand(redis.url, ["CONFIG", "SET", "maxmemory", String(Math.floor(used / 2))]);
      },
      felt: "unavailable",
      heal: async () => {
        await redisCommand(redis.url, ["CONFIG", "SET", "maxmemory", "0"]);
      },
    });
    expectHeld(row, flows);
    // What refused them was memory: Redis answered writes with its OOM error.
    const errors = String(await redisCommand(redis.url, ["INFO", "errorstats"]));
    expect(Number(/errorstat_OOM:count=(\d+)/.exec(errors)?.[1] ?? 0)).toBeGreaterThan(0);
  });

  it("refuses to start on maxmemory-policy volatile-lru, exit 2, naming the setting", async () => {
    const evicting = await RedisServer.start({ program, config: ["--maxmemory-policy", "volatile-lru"] });
    try {
      const exit = await runToExit(fleet.environment(keys, { REDIS_URL: evicting.url }));
      expect(exit.code).toBe(2);
      expect(exit.output).toMatch(
        /maxmemory-policy is volatile-lru: set it to noeviction, or an evicted claim lets a round run twice/,
      );
    } finally {
      await evicting.stop();
    }
  });
});

describe.each(PROGRAMS)(
  "once-flows through a Sentinel failover of %s with REDIS_REPLICA_ACKS=1",
  (program) => {
    let group: RedisSentinelGroup;

    beforeAll(async () => {
      group = await RedisSentinelGroup.start({ program });
      await fleet.moveTo(
        {
          REDIS_SENTINEL_URLS: group.sentinels.map((sentinel) => sentinel.url).join(","),
          REDIS_SENTINEL_MASTER: group.name,
          REDIS_REPLICA_ACKS: "1",
          REDIS_REPLICA_ACK_TIMEOUT_MS: "500",
        },
        keys,
      );
    }, 240_000);

    afterAll(() => group?.stop());

    it("a lagging replica fails rounds closed; the primary dies, Sentinel promotes the replica; each flow once", async () => {
      const primary = await group.primary();
      const replica = group.servers.find((server) => server !== primary) as RedisServer;
      const { row, flows } = await throughFault(program, "Sentinel failover, lagging replica", {
        // The replica stops reading: the primary takes each write, but no replica acknowledges it.
        strike: async () => replica.freeze(),
        felt: "unconfirmed",
        heal: async () => {
          // The primary stops answering and dies; the replica, reading again, has what it was sent.
          primary.freeze();
          replica.thaw();
          await waitFor(
            `Sentinel to promote ${replica.port}`,
            async () => (await group.primary()) === replica,
            120_000,
          );
          await primary.kill();
          // Back on its port and folder, it is turned into the new primary's replica by Sentinel, so
          // writes are acknowledged again.
          await primary.start();
          await waitFor(
            `${primary.port} to replicate ${replica.port}`,
            async () =>
              /slave0:.*state=online/.test(String(await redisCommand(replica.url, ["INFO", "replication"]))),
            120_000,
          );
        },
      });
      expectHeld(row, flows);
      expect(row.refusals.unconfirmed).toBeGreaterThan(0);
    });
  },
);
