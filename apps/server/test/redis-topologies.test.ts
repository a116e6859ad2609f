import type { LocalAuthServer } from "@roundtrip/local-auth";
import { RedisCluster, RedisSentinelGroup, RedisServer } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let single: RedisServer;
let cluster: RedisCluster;
let group: RedisSentinelGroup;

beforeAll(async () => {
  as = await startAuthorizationServer();
  single = await RedisServer.start();
  cluster = await RedisCluster.start();
  group = await RedisSentinelGroup.start();
}, 180_000);

afterAll(async () => {
  await as?.close();
  await single?.stop();
  await cluster?.stop();
  await group?.stop();
});

async function poll(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the server with `env`, runs `check` on it, and closes it whatever happens. */
async function withServer(env: Record<string, string>, check: (app: RunningServer) => Promise<void>) {
  const app = await startServer(serverEnvironment(as, env));
  try {
    await check(app);
  } finally {
    await app.close();
  }
}

const readyz = async (app: RunningServer) => {
  const response = await fetch(`${app.origin}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string } };
};

describe("the reference server on each Redis topology", () => {
  const forms: [string, () => Record<string, string>][] = [
    ["REDIS_URL", () => ({ REDIS_URL: single.url })],
    ["REDIS_CLUSTER_URLS", () => ({ REDIS_CLUSTER_URLS: cluster.urls.join(",") })],
    [
      "REDIS_SENTINEL_URLS and REDIS_SENTINEL_MASTER",
      () => ({
        REDIS_SENTINEL_URLS: group.sentinels.map((sentinel) => sentinel.url).join(","),
        REDIS_SENTINEL_MASTER: group.name,
      }),
    ],
  ];

  it.each(forms)("answers /readyz ready when set with %s", async (_name, env) => {
    await withServer(env(), async (app) => {
      await poll(async () => (await readyz(app)).body.status === "ready");
      expect((await readyz(app)).status).toBe(200);
    });
  });

  // node-redis gives up connecting after its 5 s connect timeout; the poll allows 30 s.
  it("logs why it cannot reach Redis when a rediss:// URL names a plaintext port, and is not ready", async () => {
    const url = single.url.replace("redis://", "rediss://");
    await withServer({ REDIS_URL: url }, async (app) => {
      const named = () =>
        app.logs
          .text()
          .includes(`no TLS handshake with the Redis at 127.0.0.1:${single.port} completed in time`);
      await poll(async () => named());
      expect((await readyz(app)).body.status).not.toBe("ready");
    });
  });

  it("refuses to start when REDIS_TLS_CA_FILE cannot be read, naming the file", async () => {
    const env = { REDIS_URL: "rediss://127.0.0.1:6380", REDIS_TLS_CA_FILE: "/nonexistent/ca.pem" };
    await expect(startServer(serverEnvironment(as, env))).rejects.toThrow(
      /REDIS_TLS_CA_FILE \/nonexistent\/ca\.pem could not be read/,
    );
  });
});
