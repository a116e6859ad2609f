import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { RedisServer } from "@roundtrip/test-services";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openSharedState, type SharedState } from "../src/index.js";
import {
  CHILD_START_WITHIN_MS,
  type ChildServer,
  runChildToExit,
  startChildServer,
} from "./support/child-server.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const CHILD_TEST_MS = 2 * CHILD_START_WITHIN_MS + 10_000;
const READY_WITHIN = { timeout: 60_000, interval: 50 };

let as: LocalAuthServer;
let keyDir: string;
let keyFile: string;
const redises: RedisServer[] = [];
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer();
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-store-guarantee-"));
  keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
}, 120_000);

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

afterAll(async () => {
  for (const redis of redises) await redis.stop();
  await as?.close();
  await rm(keyDir, { recursive: true, force: true });
});

async function redisWith(...config: string[]): Promise<RedisServer> {
  const redis = await RedisServer.start({ config });
  redises.push(redis);
  return redis;
}

function environment(redis: RedisServer, overrides: Record<string, string> = {}): Record<string, string> {
  return serverEnvironment(as, { REQUEST_STATE_KEY_FILE: keyFile, REDIS_URL: redis.url, ...overrides });
}

describe("main.ts against a Redis that can forget", () => {
  it("exits 2 before listening, naming each setting to change and the override", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const redis = await redisWith("--appendonly", "no", "--maxmemory-policy", "volatile-lru");
    const exit = await runChildToExit(environment(redis));
    expect(exit.code).toBe(2);
    expect(exit.output).toMatch(
      /refusing to serve once-rounds from a Redis that can forget a claim, which would let a round run twice: appendonly is no: set it to yes .*; maxmemory-policy is volatile-lru: set it to noeviction, or an evicted claim lets a round run twice\. For development only, allow it explicitly with ROUNDTRIP_ALLOW_FORGETFUL_STORE=1/,
    );
    expect(exit.output).not.toContain('"msg":"listening"');
  });

  it("exits 2 on appendfsync everysec, which replies before its sync and loses what a killed Redis held", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const redis = await redisWith("--appendfsync", "everysec");
    const exit = await runChildToExit(environment(redis));
    expect(exit.code).toBe(2);
    expect(exit.output).toMatch(
      /refusing to serve once-rounds from a Redis that can forget a claim, which would let a round run twice: appendfsync is everysec: set it to always \(or wait for replicas on every write with REDIS_REPLICA_ACKS\)/,
    );
    expect(exit.output).not.toContain('"msg":"listening"');
  });

  it("starts with ROUNDTRIP_ALLOW_FORGETFUL_STORE=1, warning of what can be lost", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const redis = await redisWith("--appendonly", "no");
    const child: ChildServer = await startChildServer(
      environment(redis, { ROUNDTRIP_ALLOW_FORGETFUL_STORE: "1" }),
    );
    closers.push(() => child.stop());
    const warning = child.lines().find((line) => line.setting === "appendonly");
    expect(warning).toMatchObject({
      level: 40,
      value: "no",
      msg: expect.stringMatching(/^forgetful store allowed for development: appendonly is no: set it to yes/),
    });
    // Accepted, the store counts as ready (it answers once the authorization server is checked).
    await vi.waitFor(async () => {
      const ready = (await (await fetch(`${child.origin}/readyz`)).json()) as { status: string };
      expect(ready.status).toBe("ready");
    }, READY_WITHIN);
  });

  it("starts on a durable Redis without a word about its guarantee", { timeout: CHILD_TEST_MS }, async () => {
    const redis = await redisWith();
    const child = await startChildServer(environment(redis));
    closers.push(() => child.stop());
    expect(child.lines().filter((line) => line.setting !== undefined)).toEqual([]);
  });
});

describe("main.ts against a Redis durable through its replica, without AOF (as ElastiCache)", () => {
  let primary: RedisServer;

  beforeAll(async () => {
    primary = await redisWith("--appendonly", "no");
    // The same program as its primary: a replica loads the primary's RDB, whose format is its own.
    await redisWith("--appendonly", "no", "--replicaof", "127.0.0.1", String(primary.port));
    const admin = createClient({ url: primary.url });
    admin.on("error", () => {});
    await admin.connect();
    try {
      await vi.waitFor(async () => {
        const info = String(await admin.sendCommand(["INFO", "replication"]));
        expect(info).toMatch(/connected_slaves:1/);
        expect(info).toMatch(/slave0:.*state=online/);
      }, READY_WITHIN);
    } finally {
      admin.destroy();
    }
  }, 120_000);

  it("starts with REDIS_REPLICA_ACKS=1, without a word about its guarantee", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const child = await startChildServer(environment(primary, { REDIS_REPLICA_ACKS: "1" }));
    closers.push(() => child.stop());
    expect(child.lines().filter((line) => line.setting !== undefined)).toEqual([]);
    await vi.waitFor(async () => {
      const ready = (await (await fetch(`${child.origin}/readyz`)).json()) as { status: string };
      expect(ready.status).toBe("ready");
    }, READY_WITHIN);
  });

  it("exits 2 without REDIS_REPLICA_ACKS, naming appendonly", { timeout: CHILD_TEST_MS }, async () => {
    const exit = await runChildToExit(environment(primary));
    expect(exit.code).toBe(2);
    expect(exit.output).toMatch(/refusing to serve once-rounds .*appendonly is no: set it to yes/);
    expect(exit.output).not.toContain('"msg":"listening"');
  });

  it("exits 2 with REDIS_REPLICA_ACKS=2 and one replica, naming the replicas missing", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const exit = await runChildToExit(environment(primary, { REDIS_REPLICA_ACKS: "2" }));
    expect(exit.code).toBe(2);
    expect(exit.output).toMatch(/only 1 of the 2 replicas REDIS_REPLICA_ACKS waits for are connected/);
  });
});

describe("/readyz", () => {
  let redis: RedisServer;
  let primary: RedisServer;
  let admin: ReturnType<typeof createClient>;

  beforeAll(async () => {
    [redis, primary] = await Promise.all([redisWith(), redisWith()]);
    admin = createClient({ url: redis.url });
    admin.on("error", () => {});
    await admin.connect();
  }, 120_000);

  afterAll(() => admin?.destroy());

  async function instance(guaranteeRecheckMs: number): Promise<RunningServer> {
    const codec = new AesGcmRequestStateCodec([randomBytes(32)]);
    const state: SharedState = await openSharedState({ url: redis.url }, silentLogger, codec, {
      guaranteeRecheckMs,
    });
    const app = await startServer(serverEnvironment(as), { sharedState: state });
    closers.push(
      () => state.close(),
      () => app.close(),
    );
    await untilReadyz(app, (body) => body.status === "ready");
    return app;
  }

  type Readyz = { status: string; reason?: string };

  async function readyz(app: RunningServer): Promise<Readyz> {
    return (await (await fetch(`${app.origin}/readyz`)).json()) as Readyz;
  }

  async function untilReadyz(app: RunningServer, done: (body: Readyz) => boolean): Promise<Readyz> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const body = await readyz(app);
      if (done(body)) return body;
      if (Date.now() > deadline) throw new Error(`/readyz still says ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("says degraded after CONFIG SET appendonly no, naming the setting, and ready once it is back", async () => {
    const app = await instance(0);
    await admin.sendCommand(["CONFIG", "SET", "appendonly", "no"]);
    try {
      const body = await untilReadyz(app, (answer) => answer.status !== "ready");
      expect(body).toMatchObject({ status: "degraded" });
      expect(body.reason).toMatch(
        /^the store can forget acknowledged writes: appendonly is no: set it to yes .*; until it is set, a deploy or create_service replayed .* can run twice$/,
      );
      expect(app.logs.lines()).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(/^the shared state store says it can forget acknowledged writes/),
        }),
      );
    } finally {
      await admin.sendCommand(["CONFIG", "SET", "appendonly", "yes"]);
    }
    await untilReadyz(app, (answer) => answer.status === "ready");
  });

  it("says degraded after REPLICAOF, naming the role, and ready once it is a primary again", async () => {
    const app = await instance(0);
    // A replica that takes writes, so that only the role can tell: a read-only one is also refused
    // by the write probe (READONLY), which the stall suite covers.
    await admin.sendCommand(["CONFIG", "SET", "replica-read-only", "no"]);
    // The sync is loaded from the socket, never written as dump.rdb.
    await admin.sendCommand(["CONFIG", "SET", "repl-diskless-load", "swapdb"]);
    await admin.sendCommand(["REPLICAOF", "127.0.0.1", String(primary.port)]);
    try {
      const body = await untilReadyz(app, (answer) => answer.status !== "ready");
      expect(body.status).toBe("degraded");
      expect(body.reason).toMatch(
        /^the store can forget acknowledged writes: the store is a replica, not a primary: point the fleet at the primary/,
      );
    } finally {
      await admin.sendCommand(["REPLICAOF", "NO", "ONE"]);
      await admin.sendCommand(["CONFIG", "SET", "replica-read-only", "yes"]);
    }
    await untilReadyz(app, (answer) => answer.status === "ready");
  });

  it("asks Redis at its interval, not on every probe", async () => {
    const calls = async () => {
      const info = String(await admin.sendCommand(["INFO", "commandstats"]));
      return Number(/cmdstat_role:calls=(\d+)/.exec(info)?.[1] ?? 0);
    };
    // An hour: far beyond this test, so every probe below answers from the first verdict.
    const app = await instance(3_600_000);
    const before = await calls();
    for (let probe = 0; probe < 10; probe += 1) expect((await readyz(app)).status).toBe("ready");
    expect(await calls()).toBe(before);
    await admin.sendCommand(["CONFIG", "SET", "appendonly", "no"]);
    try {
      // Still the verdict of the last check: the change shows at the next one, within the interval.
      expect((await readyz(app)).status).toBe("ready");
    } finally {
      await admin.sendCommand(["CONFIG", "SET", "appendonly", "yes"]);
    }
  });

  it("starts without waiting on a Redis that is away, and says degraded once it is back and can forget", async () => {
    const later = await redisWith("--appendonly", "no");
    await later.kill();
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: object, message: string) => warnings.push(message) };
    const codec = new AesGcmRequestStateCodec([randomBytes(32)]);
    // Redis is stopped, so the wait always runs out, whatever it is.
    const state = await openSharedState({ url: later.url }, logger, codec, { startupWaitMs: 200 });
    closers.push(() => state.close());
    const app = await startServer(serverEnvironment(as), { sharedState: state });
    closers.push(() => app.close());
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^Redis did not answer at startup, so whether it keeps acknowledged writes is not yet known/,
      ),
    );
    await later.start();
    const body = await untilReadyz(app, (answer) => /the store can forget/.test(answer.reason ?? ""));
    expect(body).toMatchObject({
      status: "degraded",
      reason: expect.stringMatching(/appendonly is no: set it to yes/),
    });
  });
});
