import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { RedisServer } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { approveThroughProxy } from "../src/approval.js";
import { Fleet } from "../src/fleet.js";
import { UPSTREAM_HEADER } from "../src/proxy.js";

/**
 * A 2025-era client (the official TypeScript SDK v1) against three instances behind round-robin
 * nginx with no sticky routing: its session, its GET stream and the answers to the server's
 * questions land on whichever instance nginx picks, and Redis (the session registry and the bus)
 * joins them up.
 */
let redis: RedisServer;
let fleet: Fleet;
let alice: string;

beforeAll(async () => {
  useDummyAwsEnvironment();
  redis = await RedisServer.start();
  fleet = await Fleet.start({ size: 3, ttlSeconds: 120, redisUrl: redis.url }, async (starting) => [
    await starting.mintKey(),
  ]);
  alice = await fleet.userToken("alice", "mcp:tools mcp:deploy");
}, 240_000);

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
  vi.unstubAllEnvs();
}, 180_000);

const DEPLOY = { service: "ledger", env: "production" };

describe("the official v1 client through round-robin nginx, sessions in Redis", () => {
  it("completes deploy, confirmation form and URL approval, with its messages spread over the instances", async () => {
    const upstreams: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const upstream = response.headers.get(UPSTREAM_HEADER);
      if (upstream) upstreams.push(upstream.split(",").pop()?.trim() ?? upstream);
      return response;
    };
    const client = new Client(
      { name: "v1-fleet", version: "1.0.0" },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    const asked: string[] = [];
    let opened = "";
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode?: string; url?: string };
      asked.push(params.mode ?? "form");
      if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
      opened = params.url ?? "";
      await approveThroughProxy(fleet.publicUrl, opened);
      return { action: "accept" };
    });
    const transport = new StreamableHTTPClientTransport(new URL(fleet.publicUrl), {
      requestInit: { headers: { authorization: `Bearer ${alice}` } },
      fetch: recording,
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "deploy", arguments: DEPLOY }, undefined, {
        timeout: 60_000,
      });
      const release = /rel-[0-9a-f]{32}/.exec(opened)?.[0] ?? "";
      expect(release).not.toBe("");
      expect(result.content).toEqual([{ type: "text", text: `Deployed ${release} of ledger to production` }]);
      expect(asked).toEqual(["form", "url"]);
      // initialize, initialized, the call and both answers: round robin put them on every instance.
      expect(new Set(upstreams).size).toBe(3);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
