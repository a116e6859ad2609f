import { RedisServer } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRedisDurability } from "../src/server/fleet/redis/redis-durability.js";
import { ForgetfulStoreError, requireDurableRedis } from "../src/server/fleet/redis/require-durable-redis.js";
import { connectedClient } from "../src/server/fleet/redis/test-support/connected-client.js";
import { recordingLogger } from "../src/test-support/in-process.js";
import { closersAfterEach } from "./support/redis-server.js";

const closers = closersAfterEach();
const servers: RedisServer[] = [];
let primary: RedisServer;

beforeAll(async () => {
  primary = await RedisServer.start();
  servers.push(primary);
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
});

/** A new redis-server run with `config` over the durable defaults, and a client of it. */
async function serverWith(...config: string[]) {
  const server = await RedisServer.start({ config });
  servers.push(server);
  const client = await connectedClient(server.url);
  closers.push(() => client.destroy());
  return { server, client };
}

async function redisWith(...config: string[]) {
  return (await serverWith(...config)).client;
}

/** Polls INFO replication until `count` replicas are connected: a replica connects after its first sync. */
async function untilConnectedReplicas(client: Awaited<ReturnType<typeof connectedClient>>, count: number) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const info = String(await client.sendCommand(["INFO", "replication"]));
    if (Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? "0") >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${count} replicas connected after 60 s`);
}

describe("checkRedisDurability", () => {
  it("finds nothing on AOF synced before each reply (always), noeviction and a primary", async () => {
    const client = await connectedClient(primary.url);
    closers.push(() => client.destroy());
    expect(await checkRedisDurability(client)).toEqual([]);
  });

  it.each([
    {
      config: ["--appendonly", "no"],
      setting: "appendonly",
      value: "no",
      message: /^appendonly is no: set it to yes .*a restart or crash loses every claim/,
    },
    {
      config: ["--appendonly", "no", "--save", "3600 1"],
      setting: "appendonly",
      value: "no",
      message: /since the last snapshot/,
    },
    {
      config: ["--appendfsync", "no"],
      setting: "appendfsync",
      value: "no",
      message: /^appendfsync is no: set it to always .*a crash of the host loses/,
    },
    {
      // Replies before its sync, and holds writes in memory while a sync lags: a kill loses them
      // (shown on real servers with a slow disk in the services suite's slow-disk test).
      config: ["--appendfsync", "everysec"],
      setting: "appendfsync",
      value: "everysec",
      message:
        /^appendfsync is everysec: set it to always .*a kill of redis-server or a crash loses claims it acknowledged/,
    },
    {
      config: ["--maxmemory-policy", "volatile-lru"],
      setting: "maxmemory-policy",
      value: "volatile-lru",
      message:
        /^maxmemory-policy is volatile-lru: set it to noeviction, or an evicted claim lets a round run twice$/,
    },
    {
      config: ["--maxmemory-policy", "allkeys-lru"],
      setting: "maxmemory-policy",
      value: "allkeys-lru",
      message: /^maxmemory-policy is allkeys-lru: set it to noeviction/,
    },
  ])("names $setting when Redis runs with $config", async ({ config, setting, value, message }) => {
    const findings = await checkRedisDurability(await redisWith(...config));
    expect(findings).toEqual([expect.objectContaining({ setting, value, certain: true })]);
    expect(findings[0]?.message).toMatch(message);
  });

  it("names a replica, which refuses claims and lags behind its primary", async () => {
    const findings = await checkRedisDurability(
      await redisWith("--replicaof", "127.0.0.1", String(primary.port)),
    );
    expect(findings).toEqual([expect.objectContaining({ setting: "role", value: "slave", certain: true })]);
    expect(findings[0]?.message).toMatch(/is a replica, not a primary: point the fleet at the primary/);
  });

  it.each([
    { file: "no append-only file", config: ["--appendonly", "no"], alone: ["appendonly"] },
    { file: "a file synced after the reply", config: ["--appendfsync", "everysec"], alone: ["appendfsync"] },
  ])(
    "takes replicas that acknowledge every write in place of $file, while enough are connected",
    async ({ config, alone }) => {
      const { server, client } = await serverWith(...config);
      const replica = await RedisServer.start({ config: ["--replicaof", "127.0.0.1", String(server.port)] });
      servers.push(replica);
      await untilConnectedReplicas(client, 1);
      expect(await checkRedisDurability(client, { replicaAcks: 1 })).toEqual([]);
      const short = await checkRedisDurability(client, { replicaAcks: 2 });
      expect(short).toEqual([expect.objectContaining({ setting: "replicas", value: "1", certain: true })]);
      expect(short[0]?.message).toMatch(/^only 1 of the 2 replicas replicaAcks waits for are connected/);
      // Without replicaAcks the replicas do not count: nothing waits for them.
      expect((await checkRedisDurability(client)).map((finding) => finding.setting)).toEqual(alone);
    },
  );

  it("with replicaAcks, names missing replicas even on a file synced before each reply: every write would fail its WAIT", async () => {
    const findings = await checkRedisDurability(await redisWith(), { replicaAcks: 1 });
    expect(findings).toEqual([expect.objectContaining({ setting: "replicas", value: "0", certain: true })]);
    expect(findings[0]?.message).toMatch(
      /^only 0 of the 1 replicas replicaAcks waits for are connected: every write would be refused as not durable; bring the replicas back, or stop waiting for them on a Redis with appendonly yes and appendfsync always$/,
    );
  });

  it("names every setting at once", async () => {
    const findings = await checkRedisDurability(
      await redisWith("--appendonly", "no", "--maxmemory-policy", "allkeys-random"),
    );
    expect(findings.map((finding) => finding.setting)).toEqual(["appendonly", "maxmemory-policy"]);
  });

  it("says what it cannot tell when CONFIG is blocked, as managed services do, and reads the policy from INFO", async () => {
    const blocked = await redisWith("--rename-command", "CONFIG", "");
    expect(await checkRedisDurability(blocked)).toEqual([
      expect.objectContaining({ setting: "appendfsync", value: "unknown", certain: false }),
    ]);
    const evicting = await redisWith("--rename-command", "CONFIG", "", "--maxmemory-policy", "volatile-lru");
    const findings = await checkRedisDurability(evicting);
    expect(findings.map(({ setting, value, certain }) => ({ setting, value, certain }))).toEqual([
      { setting: "appendfsync", value: "unknown", certain: false },
      { setting: "maxmemory-policy", value: "volatile-lru", certain: true },
    ]);
    expect(findings[0]?.message).toMatch(/CONFIG GET appendfsync was refused .*parameter group/);
  });

  it("follows a setting changed at run time", async () => {
    const client = await redisWith();
    await client.sendCommand(["CONFIG", "SET", "appendonly", "no"]);
    expect((await checkRedisDurability(client)).map((finding) => finding.setting)).toEqual(["appendonly"]);
  });

  it("rejects when Redis is not connected, since nothing can be said of it", async () => {
    const client = await redisWith();
    await client.close();
    await expect(checkRedisDurability(client)).rejects.toThrow(/not connected/);
  });

  it("rejects at its deadline when Redis does not answer", async () => {
    const server = await RedisServer.start();
    servers.push(server);
    const client = await connectedClient(server.url);
    closers.push(() => client.destroy());
    server.freeze();
    try {
      await expect(checkRedisDurability(client, { timeoutMs: 200 })).rejects.toThrow(
        /did not answer within 200 ms/,
      );
    } finally {
      server.thaw();
    }
  });
});

describe("requireDurableRedis", () => {
  it("refuses a store that can forget, naming each setting to change", async () => {
    const client = await redisWith("--appendonly", "no", "--maxmemory-policy", "volatile-lru");
    const refused = await requireDurableRedis(client).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ForgetfulStoreError);
    expect((refused as ForgetfulStoreError).message).toMatch(
      /^refusing to serve once-rounds from a Redis that can forget a claim.*appendonly is no: set it to yes.*maxmemory-policy is volatile-lru: set it to noeviction.*allow it explicitly/,
    );
    expect((refused as ForgetfulStoreError).findings).toHaveLength(2);
  });

  it("accepts a forgetful store when allowed, warning of each thing that can be lost", async () => {
    const logger = recordingLogger();
    const client = await redisWith("--appendonly", "no");
    const findings = await requireDurableRedis(client, { allowForgetful: true, logger });
    expect(findings).toHaveLength(1);
    expect(logger.records).toEqual([
      {
        level: "warn",
        fields: { setting: "appendonly", value: "no" },
        message: expect.stringMatching(/^forgetful store allowed for development: appendonly is no/),
      },
    ]);
  });

  it("starts on a store whose CONFIG is blocked, warning of what it could not check", async () => {
    const logger = recordingLogger();
    const client = await redisWith("--rename-command", "CONFIG", "");
    await requireDurableRedis(client, { logger });
    expect(logger.records).toEqual([
      expect.objectContaining({
        level: "warn",
        fields: { setting: "appendfsync" },
        message: expect.stringMatching(/^store guarantee unverified: CONFIG GET appendfsync was refused/),
      }),
    ]);
  });

  it("says nothing of a durable store", async () => {
    const logger = recordingLogger();
    const client = await connectedClient(primary.url);
    closers.push(() => client.destroy());
    expect(await requireDurableRedis(client, { logger })).toEqual([]);
    expect(logger.records).toEqual([]);
  });
});
