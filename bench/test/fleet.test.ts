import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOWS } from "../src/driver/flows.js";
import { createPostClient } from "../src/driver/http-client.js";
import { type RunningProxy, startProxy } from "../src/fleet/nginx.js";
import { FLEET_KEY_ENV, startServer } from "../src/targets/catalog.js";
import { BENCH_HOST, type Listening } from "../src/targets/listen.js";

/**
 * The fleet row's premise, checked through a real nginx: with one key and plain round-robin, a
 * flow whose second round lands on another instance still completes, and a tampered state is still
 * refused there.
 */
describe("the bench fleet behind nginx", () => {
  const instances: Listening[] = [];
  let proxy: RunningProxy | undefined;

  beforeAll(async () => {
    process.env[FLEET_KEY_ENV] = randomBytes(32).toString("hex");
    for (let i = 0; i < 3; i++) instances.push(await startServer("roundtrip-mcp-keyed"));
    proxy = await startProxy(
      instances.map((instance) => instance.port),
      { keepalive: 4 },
    );
  }, 60_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(instances.map((instance) => instance.close()));
    delete process.env[FLEET_KEY_ENV];
  });

  it("completes greet flows whose rounds go to different instances, and refuses tampered state", async () => {
    const client = createPostClient(BENCH_HOST, proxy?.port ?? 0, { sockets: 1, timeoutMs: 10_000 });
    try {
      // One connection, round-robin over three: consecutive rounds never reach the same instance.
      for (let seq = 1; seq <= 6; seq++) {
        const rounds = await FLOWS.greet(client, seq);
        expect(rounds).toHaveLength(2);
      }
      await FLOWS.tampered(client, 7);
    } finally {
      client.close();
    }
  });
});
