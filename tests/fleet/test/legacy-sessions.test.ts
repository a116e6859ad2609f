import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { RedisServer } from "@roundtrip/test-services";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { approveThroughProxy } from "../src/approval.js";
import { Fleet } from "../src/fleet.js";
import type { ServerInstance } from "../src/instance.js";
import { UPSTREAM_HEADER } from "../src/proxy.js";
import { SteeredClient } from "../src/steered-client.js";

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

const YES = { action: "accept", content: { confirm: true } } as const;
const NO = { action: "accept", content: { confirm: false } } as const;
const NOT_DEPLOYED = /^Release rel-[0-9a-f]{32} was not deployed$/;
const NOT_APPROVED = /^Release rel-[0-9a-f]{32} was not approved \(declined\); nothing was deployed$/;

describe("two calls of one 2025-era session asking on different instances", () => {
  const clients: SteeredClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  async function session(home: string): Promise<SteeredClient> {
    const client = new SteeredClient(home, alice);
    clients.push(client);
    await client.connect();
    return client;
  }

  const instance = (index: number) => fleet.instances[index] as ServerInstance;
  const one = () => instance(0);
  const two = () => instance(1);
  const three = () => instance(2);

  /** Where each request of the scenario goes; anything unnamed goes to the session's home URL. */
  interface Routes {
    staging?: string;
    production?: string;
    /** The yes to staging's confirmation. */
    yes?: string;
    /** Production's no, and staging's declined approval. */
    rest?: string;
  }

  /**
   * Deploys api to staging, then to production, on one session, each call waiting on its confirmation
   * form; answers yes to staging only. Staging alone goes on (to its approval URL), production waits
   * until its own no arrives; then staging's approval is declined: nothing is deployed.
   */
  async function yesReachesStagingOnly(client: SteeredClient, via: Routes = {}): Promise<void> {
    const next = () => client.happenings.next();
    client.deploy("api", "staging", via.staging);
    expect(await next()).toEqual({ kind: "question", call: "staging", mode: "form" });
    client.deploy("api", "production", via.production);
    expect(await next()).toEqual({ kind: "question", call: "production", mode: "form" });
    expect(await client.answer("staging", "form", YES, via.yes)).toBe(202);
    expect(await next()).toEqual({ kind: "question", call: "staging", mode: "url" });
    expect(await client.answer("production", "form", NO, via.rest)).toBe(202);
    expect(await next()).toEqual({
      kind: "result",
      call: "production",
      text: expect.stringMatching(NOT_DEPLOYED),
    });
    expect(await client.answer("staging", "url", { action: "decline" }, via.rest)).toBe(202);
    expect(await next()).toEqual({
      kind: "result",
      call: "staging",
      text: expect.stringMatching(NOT_APPROVED),
    });
  }

  /** The instance that answered the first request `what` names. */
  const answeredBy = (client: SteeredClient, what: string) =>
    client.sent.find((s) => s.what === what)?.instance;

  it("directly, two instances: the yes for staging, posted to the instance serving production, confirms staging only", async () => {
    const client = await session(one().url);
    await yesReachesStagingOnly(client, { staging: one().url, production: two().url, yes: two().url });
    expect(answeredBy(client, "call staging")).toBe(one().name);
    expect(answeredBy(client, "call production")).toBe(two().name);
  });

  it("directly, three instances: the yes for staging, posted to a third instance, confirms staging only", async () => {
    const client = await session(one().url);
    const routes = { staging: one().url, production: two().url, yes: three().url, rest: three().url };
    await yesReachesStagingOnly(client, routes);
    expect(answeredBy(client, "call staging")).toBe(one().name);
    expect(answeredBy(client, "call production")).toBe(two().name);
  });

  it("through round-robin nginx: each answer confirms only the call that asked it", async () => {
    const client = await session(fleet.publicUrl);
    await yesReachesStagingOnly(client);
    const yes = client.sent.find((s) => s.what.startsWith("answer "))?.instance;
    // Round robin spread them: the yes reached an instance other than the one that asked it.
    const spread = [answeredBy(client, "call staging"), answeredBy(client, "call production"), yes];
    expect(new Set(spread).size).toBe(3);
  });

  it("an answer published straight to Redis, unsealed or under other keys, settles nothing", async () => {
    const client = await session(one().url);
    client.deploy("api", "staging", one().url);
    expect(await client.happenings.next()).toEqual({ kind: "question", call: "staging", mode: "form" });
    const id = client.questionId("staging", "form");
    const marker = "forged-answer-marker";
    const event = {
      type: "answer",
      to: String(id).split(".")[0],
      session: client.sessionId,
      id,
      answer: { result: { action: "accept", content: { confirm: true, marker } } },
    };
    const envelope = JSON.stringify({ from: "forger", event });
    const forger = createClient({ url: redis.url });
    await forger.connect();
    try {
      const strangers = new AesGcmRequestStateCodec([randomBytes(32)]);
      await forger.publish("roundtrip:bus", strangers.seal(new TextEncoder().encode(envelope)));
      await forger.publish("roundtrip:bus", envelope);
    } finally {
      forger.destroy();
    }
    const drops = () =>
      one()
        .lines()
        .filter((line) => /dropped a message on the bus/.test(line.msg ?? ""));
    // Either the instance that asked drops both, or the forged yes reaches the call.
    const outcome = await Promise.race([
      one()
        .untilLogged(() => drops().length >= 2)
        .then(() => "dropped"),
      client.happenings.next(),
    ]);
    expect(outcome).toBe("dropped");
    expect(drops().map((line) => [line.level, line.reason])).toEqual([
      [40, "keys"],
      [40, "keys"],
    ]);
    expect(one().output()).not.toContain(marker);
    expect(await client.answer("staging", "form", NO, two().url)).toBe(202);
    expect(await client.happenings.next()).toEqual({
      kind: "result",
      call: "staging",
      text: expect.stringMatching(NOT_DEPLOYED),
    });
  });
});
