import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { Client, type InputRequiredResult, McpError } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { RedisServer } from "@roundtrip/test-services";
import {
  another,
  approvalUrlOf,
  CONFIRMED,
  createServiceAnswers,
  OPENED,
  type Retry,
  textOf,
} from "@roundtrip/test-support/rounds";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryApprovalLedger } from "../src/approvals/approval-ledger.js";
import type { ApprovalStore, Requester } from "../src/approvals/approval-store.js";
import { RedisApprovalLedger } from "../src/approvals/redis-approval-ledger.js";
import { approveAcross } from "./support/approval-page.js";
import { approvalStore, requested } from "./support/approvals.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient, oneRound } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";
import { untilReady } from "./support/until-ready.js";

let redis: RedisServer;
let as: LocalAuthServer;
let alice: string;
let keyDir: string;
let keyFile: string;
let a: RunningServer;
let b: RunningServer;
const watch = new LeakWatch();
const clients: { destroy(): void }[] = [];
const servers: RunningServer[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
  as = await startAuthorizationServer();
  alice = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-fleet-keys-"));
  keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
  a = await instance();
  b = await instance();
}, 180_000);

afterAll(async () => {
  for (const client of clients) client.destroy();
  for (const server of servers) await server.close();
  await as?.close();
  await redis?.stop();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

/** One instance of the fleet: the same keys, name and public URL, and the one Redis. */
async function instance(overrides: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer(
    serverEnvironment(as, {
      SERVER_NAME: "roundtrip-fleet",
      REQUEST_STATE_KEY_FILE: keyFile,
      REDIS_URL: redis.url,
      ...overrides,
    }),
  );
  servers.push(server);
  return server;
}

async function redisClient() {
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on("error", () => {});
  clients.push(client);
  await client.connect();
  return client;
}

const call = (server: RunningServer, name: string, args: Record<string, unknown>, retry: Retry = {}) =>
  oneRound(server.url, alice, watch, name, args, retry);

/** How many times the fleet logged `msg`: the example tools' stand-in for their side effect. */
const effects = (msg: string) =>
  servers.flatMap((server) => server.logs.lines()).filter((line) => line.msg === msg).length;

const DEPLOY = { service: "ledger", env: "production" };

describe.each([
  ["Approvals in memory", async (): Promise<ApprovalStore> => approvalStore(new MemoryApprovalLedger())],
  [
    "Approvals in Redis (redis-server)",
    async (): Promise<ApprovalStore> =>
      approvalStore(
        new RedisApprovalLedger({
          client: await redisClient(),
          prefix: `test:${randomBytes(4).toString("hex")}:`,
        }),
      ),
  ],
])("%s", (_name, makeStore) => {
  const requester: Requester = { clientId: "mcp-interactive", issuer: "https://as.test", subject: "alice" };
  const release = () => `rel-${randomBytes(16).toString("hex")}`;

  it("keeps a release for the user who asked, and only they approve it", async () => {
    const store = await makeStore();
    const id = release();
    await store.ask(id, { service: "api", env: "staging", principal: requester });
    expect(await store.approve(id, requester)).toBe("unconfirmed");
    expect(await store.request(id, requester)).toBe("requested");
    await store.ask(id, { service: "api", env: "staging", principal: requester });
    expect(await store.request(id, requester)).toBe("requested");
    await expect(
      store.ask(id, { service: "api", env: "staging", principal: { ...requester, subject: "bob" } }),
    ).rejects.toThrow(/requested by another user; call deploy again/);
    await expect(store.request(id, { issuer: requester.issuer, subject: "bob" })).rejects.toThrow(
      /requested by another user; call deploy again/,
    );
    expect(await store.approve(id, { issuer: requester.issuer, subject: "bob" })).toBe("not-requester");
    expect(await store.consume(id, requester)).toBe("not-approved");
    expect(await store.status(id)).toEqual({
      release: id,
      service: "api",
      env: "staging",
      requester,
      state: "pending",
      requestedAt: expect.any(String),
    });
    expect(await store.approve(id, requester)).toBe("approved");
    expect(await store.approve(release(), requester)).toBe("unknown");
    expect(await store.status(release())).toBeUndefined();
  });

  it("settles an Approve and a Reject that race on one outcome, and a rejected release never deploys", async () => {
    const store = await makeStore();
    for (let round = 0; round < 5; round++) {
      const id = release();
      await requested(store, id, { service: "api", env: "production", principal: requester });
      const outcomes = await Promise.all([store.approve(id, requester), store.reject(id, requester, "no")]);
      expect([
        ["approved", "already-approved"],
        ["already-rejected", "rejected"],
      ]).toContainEqual(outcomes);
      const state = (await store.status(id))?.state;
      expect(state).toBe(outcomes[0] === "approved" ? "approved" : "rejected");
      expect(await store.consume(id, requester)).toBe(state === "approved" ? "deployed" : "rejected");
    }
  });

  it("lets one approval be consumed once, even by calls that race, and by its requester only", async () => {
    const store = await makeStore();
    const id = release();
    await requested(store, id, { service: "api", env: "production", principal: requester });
    await store.approve(id, requester);
    expect(await store.consume(id, { issuer: requester.issuer, subject: "bob" })).toBe("not-approved");
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.consume(id, requester)));
    expect(outcomes.filter((outcome) => outcome === "deployed")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "already-deployed")).toHaveLength(7);
    expect((await store.status(id))?.state).toBe("deployed");
    // An approval page reloaded after the deployment does not turn it back, and is told it happened.
    expect(await store.approve(id, requester)).toBe("already-deployed");
    expect((await store.status(id))?.state).toBe("deployed");
  });

  it("keep when and for whom a release deployed, and never ask for a deployed release again", async () => {
    const store = await makeStore();
    const id = release();
    await requested(store, id, { service: "api", env: "production", principal: requester });
    expect(await store.consume(id, requester)).toBe("not-approved");
    expect(await store.approve(id, requester)).toBe("approved");
    expect(await store.consume(id, requester)).toBe("deployed");
    const status = await store.status(id);
    expect(status).toMatchObject({ release: id, requester, state: "deployed" });
    expect(Date.parse(status?.deployedAt ?? "")).toBeGreaterThan(Date.parse("2020-01-01"));
    expect(await store.request(id, requester)).toBe("already-deployed");
    await expect(store.request(id, { issuer: requester.issuer, subject: "bob" })).rejects.toThrow(
      /requested by another user/,
    );
    expect(await store.approve(id, { issuer: requester.issuer, subject: "bob" })).toBe("not-requester");
    expect(await store.consume(id, { issuer: requester.issuer, subject: "bob" })).toBe("not-approved");
  });

  it("say an approval the store has no record of is lost, and never create one for it", async () => {
    const store = await makeStore();
    const id = release();
    expect(await store.request(id, requester)).toBe("lost");
    expect(await store.consume(id, requester)).toBe("lost");
    expect(await store.approve(id, requester)).toBe("unknown");
    expect(await store.status(id)).toBeUndefined();
  });
});

describe("two instances sharing one Redis", () => {
  it("say where their state lives when they start, without the URL", async () => {
    const lines = a.logs.lines();
    expect(lines.find((line) => line.stateStore === "redis")).toMatchObject({
      msg: "approvals, once-rounds, notifications, 2025-era sessions and DPoP proof ids are shared through Redis",
      sharedThroughRedis: "approvals, once-rounds, notifications, sessions, tasks, DPoP proof ids",
      redisHost: "127.0.0.1",
      redisPort: redis.port,
      redisTls: "no",
    });
    const secret = await instance({ REDIS_URL: "redis://:pa55word-not-logged@127.0.0.1:1" });
    expect(secret.logs.text()).not.toContain("pa55word-not-logged");
    const ready = await (await fetch(`${secret.origin}/readyz`)).json();
    expect(ready).toMatchObject({ status: "degraded", sharedState: "redis" });
  });

  it("serve one deploy together: the approval page on both, and one deployment for five completions", async () => {
    const asked = another(await call(a, "deploy", DEPLOY));
    const approval = another(
      await call(b, "deploy", DEPLOY, { requestState: asked.requestState, inputResponses: CONFIRMED }),
    );
    const url = approvalUrlOf(approval);
    // Every step of the page on another instance than the one before, as round robin would send it.
    expect(await approveAcross(a, b, url)).toContain("ledger to production");

    const deployedBefore = effects("release deployed");
    const completions = await Promise.all(
      [a, b, a, b, a].map((server) =>
        call(server, "deploy", DEPLOY, { requestState: approval.requestState, inputResponses: OPENED }),
      ),
    );
    const release = /rel-[0-9a-f]{32}/.exec(url)?.[0];
    for (const result of completions) {
      expect(textOf(result)).toBe(`Deployed ${release} of ledger to production`);
    }
    expect(effects("release deployed") - deployedBefore).toBe(1);
    expect((await a.server.approvals.status(release ?? ""))?.state).toBe("deployed");
  });

  it("run a replayed create_service completion nowhere", async () => {
    const answer = (result: InputRequiredResult) =>
      createServiceAnswers(result, { runtime: "node22", tier: "small" });
    const args = { name: "billing" };
    const first = another(await call(a, "create_service", args));
    const second = another(
      await call(b, "create_service", args, {
        requestState: first.requestState,
        inputResponses: answer(first),
      }),
    );
    const completing = { requestState: second.requestState, inputResponses: answer(second) };
    const createdBefore = effects("service created");
    const done = await call(a, "create_service", args, completing);
    const replays = await Promise.all([
      call(b, "create_service", args, completing),
      call(a, "create_service", args, completing),
    ]);
    expect(textOf(done)).toBe("Created service billing on node22, size small");
    for (const replay of replays) expect(textOf(replay)).toBe(textOf(done));
    expect(effects("service created") - createdBefore).toBe(1);
  });

  it("refuse once-rounds while Redis is away, keep the other tools working, and recover", async () => {
    await redis.kill();
    try {
      const refused = await call(a, "deploy", DEPLOY).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).message).toMatch(/once/i);
      const status = await mcpClient(b.url, alice, watch, {
        onElicit: () => ({ action: "accept", content: { window: "24h" } }),
      }).readResource("status://ledger");
      expect(JSON.stringify(status.contents)).toContain("operational over the last 24h");
      const ready = await fetch(`${a.origin}/readyz`);
      expect([ready.status, ((await ready.json()) as { status: string }).status]).toEqual([200, "degraded"]);
    } finally {
      await redis.start();
    }
    await untilReady(a);
    another(await call(a, "deploy", DEPLOY));
  });
});

describe("an instance without REDIS_URL", () => {
  it("says when it starts that its state is kept in this process, right for one instance only", async () => {
    const alone = await startServer(serverEnvironment(as, { REQUEST_STATE_KEY_FILE: keyFile }));
    servers.push(alone);
    const started = alone.logs.lines().filter((line) => typeof line.stateStore === "string");
    expect(started).toEqual([
      expect.objectContaining({
        level: 40,
        stateStore: "process",
        msg: "approvals, once-rounds, notifications, 2025-era sessions and DPoP proof ids are kept in this process: right for one instance; set REDIS_URL for a fleet",
      }),
    ]);
    expect(started[0]).not.toHaveProperty("redisHost");
    const ready = await (await fetch(`${alone.origin}/readyz`)).json();
    expect(ready).toMatchObject({ status: "ready", sharedState: "process" });
  });
});

describe("INSTANCE_NAME", () => {
  it("names the instance that answered in a Roundtrip-Instance header, on MCP rounds and pages alike, and only when set", async () => {
    const named = await instance({ INSTANCE_NAME: "blue-2" });
    const seen: (string | null)[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.headers.get("roundtrip-instance"));
      return response;
    };
    const result = await new Client(named.url, {
      logger: silentLogger,
      onListRoots: () => ({ roots: [{ uri: "file:///srv/blue", name: "blue" }] }),
      http: { fetch: recording, headers: { authorization: `Bearer ${alice}` } },
    }).callTool("list_workspace", {});
    expect(textOf(result)).toContain("file:///srv/blue");
    // The call and its retry with the roots, at least: every response named the instance.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen)).toEqual(new Set(["blue-2"]));
    const page = await fetch(`${named.origin}/approvals/rel-${"0".repeat(32)}`);
    expect(page.headers.get("roundtrip-instance")).toBe("blue-2");
    const unnamed = await fetch(`${a.origin}/readyz`);
    expect(unnamed.headers.has("roundtrip-instance")).toBe(false);
  });
});
