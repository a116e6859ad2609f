import { randomBytes } from "node:crypto";
import { Fleet } from "@roundtrip/test-fleet/fleet";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { dumpRedis, RedisServer } from "@roundtrip/test-services";
import { LeakWatch } from "@roundtrip/test-support/leak-watch";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { legacyFlow, modernFlow } from "../src/flows.js";
import { openSession } from "../src/legacy-wire.js";

/**
 * A fleet as deployed (two instances on one KMS-wrapped key behind round-robin nginx, one Redis),
 * driven in both eras through the proxy, so rounds, answers and sessions cross instances through
 * Redis. Afterwards neither instance's log nor anything Redis holds shows a secret in clear.
 */
let redis: RedisServer;
let fleet: Fleet;

beforeAll(async () => {
  useDummyAwsEnvironment();
  redis = await RedisServer.start();
  fleet = await Fleet.start({ size: 2, ttlSeconds: 600, redisUrl: redis.url }, async (starting) => [
    await starting.mintKey(),
  ]);
}, 300_000);

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
  vi.unstubAllEnvs();
}, 180_000);

const secret = (what: string) => `${what}-${randomBytes(9).toString("hex")}`;

describe("a fleet of two behind nginx, sharing Redis", () => {
  it("keeps no argument, answer, result, requestState or token in clear in Redis or in either log", async () => {
    const book = new LeakWatch();
    const url = fleet.publicUrl;
    const alice = await fleet.userToken("alice", "mcp:tools mcp:deploy");
    book.remember("access token", alice);

    const name = secret("svc");
    const created = await modernFlow(url, alice, "create_service", { name }, "");
    book.remember("tool argument (2026 era)", name);
    for (const state of created.states) book.remember("sealed requestState", state);
    expect(JSON.stringify(created.body)).toContain(name);

    const completion = secret("completion");
    book.remember("sampling answer (2026 era)", completion);
    expect(
      JSON.stringify((await modernFlow(url, alice, "summarize", { text: "x" }, completion)).body),
    ).toContain(completion);

    const service = `svc-${randomBytes(6).toString("hex")}`;
    book.remember("deploy argument", service);
    await modernFlow(url, alice, "deploy", { service, env: "staging" }, "");

    // A 2025-era session whose messages nginx spreads over both instances.
    const session = await openSession(url, alice);
    const legacyName = secret("legacy-svc");
    book.remember("tool argument (2025 era)", legacyName);
    const legacy = await legacyFlow(url, alice, session, "create_service", { name: legacyName }, "");
    expect(JSON.stringify(legacy)).toContain(legacyName);

    const { text: dump } = await dumpRedis(redis.url);
    expect(dump).toContain("roundtrip:");
    expect(book.leaksIn(dump)).toEqual([]);
    for (const instance of fleet.instances) expect(book.leaksIn(instance.output())).toEqual([]);
  });
});
