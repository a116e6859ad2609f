import { DevelopmentBrowser, firstPostForm } from "@roundtrip/local-auth";
import { Client, type ClientOptions, type InputRequiredResult, McpError } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { RedisCluster, RedisSentinelGroup, RedisServer } from "@roundtrip/test-services";
import {
  another,
  approvalUrlOf,
  CONFIRMED,
  createServiceAnswers,
  OPENED,
  type Retry,
  textOf,
} from "@roundtrip/test-support/rounds";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { approveThroughProxy as approval } from "../src/approval.js";
import { Driver } from "../src/driver.js";
import { Fleet } from "../src/fleet.js";
import { INSTANCE_HEADER } from "../src/instance.js";
import { UPSTREAM_HEADER } from "../src/proxy.js";

/**
 * Three server processes behind round-robin nginx sharing one real Redis (REDIS_URL), as the compose,
 * Kubernetes and CDK templates deploy them: no sticky routing, every step of a flow lands wherever
 * nginx sends it, and what must happen once happens once. The same flows then run with the fleet moved
 * onto a Redis Cluster of three masters (REDIS_CLUSTER_URLS) and onto a Sentinel-watched primary
 * (REDIS_SENTINEL_URLS).
 */
let redis: RedisServer;
let fleet: Fleet;
let keys: string[];
let alice: string;
const LOGS_WITHIN = { timeout: 30_000, interval: 50 };

beforeAll(async () => {
  useDummyAwsEnvironment();
  redis = await RedisServer.start();
  fleet = await Fleet.start({ size: 3, ttlSeconds: 120, redisUrl: redis.url }, async (starting) => {
    keys = [await starting.mintKey()];
    return keys;
  });
  alice = await fleet.userToken("alice", "mcp:tools mcp:deploy");
}, 240_000);

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
  vi.unstubAllEnvs();
}, 180_000);

const DEPLOY = { service: "ledger", env: "production" };

/** Alice's client against `url` (the proxy, or one instance), remembering which upstream answered. */
function client(url: string, options: Pick<ClientOptions, "onElicit"> = {}) {
  const upstreams: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const upstream = response.headers.get(UPSTREAM_HEADER);
    if (upstream) upstreams.push(upstream.split(",").pop()?.trim() ?? upstream);
    return response;
  };
  const mcp = new Client(url, {
    logger: silentLogger,
    inputRequiredMaxRounds: 200,
    onElicit: options.onElicit ?? (() => ({ action: "cancel" })),
    http: { headers: { authorization: `Bearer ${alice}` }, fetch: recording },
  });
  return { mcp, upstreams };
}

function round(url: string, name: string, args: Record<string, unknown>, retry: Retry = {}) {
  return client(url).mcp.manualRounds.callTool(name, args, { allowInputRequired: true, ...retry });
}

/**
 * How many times the fleet's processes logged `msg` (the tools' side effect), for `field=value` when
 * given. create_service logs no field: its arguments are the user's data, so its tests count the
 * effects their own steps add.
 */
function effects(msg: string, field?: string, value?: string): number {
  return fleet.instances
    .flatMap((instance) => instance.lines())
    .filter((line) => line.msg === msg && (field === undefined || line[field] === value)).length;
}

function completedRequests(): number {
  return fleet.instances
    .flatMap((instance) => instance.lines())
    .filter((line) => line.msg === "request completed").length;
}

/** The release an approval URL names. */
const releaseOf = (url: string) => /rel-[0-9a-f]{32}/.exec(url)?.[0] ?? "";

const approveThroughProxy = (url: string) => approval(fleet.publicUrl, url);

/** What create_service asks, answered: the runtime, the size, then the confirmation. */
const answer = (result: InputRequiredResult) =>
  createServiceAnswers(result, { runtime: "python3.12", tier: "large" });

/** A deploy of DEPLOY taken to its approval round through the proxy: its URL and the state to complete it. */
async function deployAwaitingApproval(): Promise<{ url: string; completing: Retry }> {
  const asked = another(await round(fleet.publicUrl, "deploy", DEPLOY));
  const approval = another(
    await round(fleet.publicUrl, "deploy", DEPLOY, {
      requestState: asked.requestState,
      inputResponses: CONFIRMED,
    }),
  );
  return {
    url: approvalUrlOf(approval),
    completing: { requestState: approval.requestState, inputResponses: OPENED },
  };
}

/**
 * Who answered a response, three ways that must agree: the instance's own header, nginx's
 * $upstream_addr (the last one it tried) and the instance's log, which has the request's id.
 */
async function answeredBy(response: Response, requestId: string): Promise<string> {
  const named = response.headers.get(INSTANCE_HEADER);
  const upstream = response.headers.get(UPSTREAM_HEADER)?.split(",").pop()?.trim() ?? "";
  const instance = fleet.instanceAt(upstream);
  expect([named, instance?.name]).toEqual([expect.any(String), named]);
  await vi.waitFor(() => expect(instance?.served().has(requestId)).toBe(true), LOGS_WITHIN);
  return named ?? "";
}

/** create_service's two asking rounds, through the proxy: what its completing round sends. */
async function completingCreateService(args: { name: string }): Promise<Retry> {
  const first = another(await round(fleet.publicUrl, "create_service", args));
  const second = another(
    await round(fleet.publicUrl, "create_service", args, {
      requestState: first.requestState,
      inputResponses: answer(first),
    }),
  );
  return { requestState: second.requestState, inputResponses: answer(second) };
}

/** list_workspace through the proxy, which needs no once-store: what the rest of the fleet still serves. */
async function workspaceThroughProxy(root: string): Promise<string> {
  const result = await new Client(fleet.publicUrl, {
    logger: silentLogger,
    onListRoots: () => ({ roots: [{ uri: root, name: "fleet" }] }),
    http: { headers: { authorization: `Bearer ${alice}` } },
  }).callTool("list_workspace", {});
  return textOf(result);
}

/** Waits until every instance's /readyz says ready, as it does once Redis answers again. */
async function untilEveryInstanceReady(): Promise<void> {
  for (const instance of fleet.instances) {
    await vi.waitFor(
      async () => {
        const ready = (await (await fetch(`${instance.origin}/readyz`)).json()) as { status: string };
        expect(ready.status).toBe("ready");
      },
      { timeout: 60_000, interval: 100 },
    );
  }
}

/** What holds whatever the fleet's Redis is: one server, a Cluster, or a primary Sentinel names. */
function flowsOnEveryTopology(): void {
  it("complete the whole deploy flow, approval page included, whichever instance serves each step", async () => {
    let opened = "";
    const { mcp, upstreams } = client(fleet.publicUrl, {
      onElicit: async (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        opened = params.url;
        await approveThroughProxy(params.url);
        return { action: "accept" };
      },
    });
    const result = await mcp.callTool("deploy", DEPLOY);
    const release = releaseOf(opened);
    expect(textOf(result)).toBe(`Deployed ${release} of ledger to production`);
    // Round robin spread the flow's rounds over more than one instance, and the page's steps too.
    expect(new Set(upstreams).size).toBeGreaterThan(1);
    await vi.waitFor(() => expect(effects("release deployed", "release", release)).toBe(1), LOGS_WITHIN);
  });

  it("sign alice in on the approval page with its start and its /callback served by different instances", async () => {
    const { url, completing } = await deployAwaitingApproval();
    const proxy = new URL(fleet.publicUrl).origin;
    const path = new URL(url).pathname;
    const browser = new DevelopmentBrowser("alice");
    // The start seals the pending sign-in into a cookie; only the callback opens it.
    const started = await browser.fetch(`${proxy}${path}/sign-in`, {
      headers: { "x-request-id": "fleet-sign-in-start" },
    });
    expect(started.status).toBe(302);
    const startedOn = await answeredBy(started, "fleet-sign-in-start");
    const answered = await browser.redirectTo(started.headers.get("location") ?? "", `${proxy}/callback`);
    const callback = await browser.fetch(answered, { headers: { "x-request-id": "fleet-sign-in-callback" } });
    const calledBackOn = await answeredBy(callback, "fleet-sign-in-callback");
    expect(calledBackOn).not.toBe(startedOn);
    // Signed in: the callback sent the browser back to the page, which now offers Approve.
    expect([callback.status, callback.headers.get("location")]).toEqual([302, path]);
    const page = await browser.visit(`${proxy}${path}`, proxy);
    const form = firstPostForm(page.html);
    expect([page.status, form?.action]).toEqual([200, `${path}/approve`]);
    const approved = await browser.fetch(new URL(form?.action ?? "", proxy), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form?.fields),
    });
    expect(approved.status).toBe(200);
    const release = releaseOf(url);
    expect(textOf(await round(fleet.publicUrl, "deploy", DEPLOY, completing))).toBe(
      `Deployed ${release} of ledger to production`,
    );
  });

  it("deploy once for one approval while its completing round is sent five times, to every instance at once", async () => {
    const { url, completing } = await deployAwaitingApproval();
    await approveThroughProxy(url);
    const release = releaseOf(url);
    const targets = [...fleet.instances.map((instance) => instance.url), fleet.publicUrl, fleet.publicUrl];
    const completedBefore = completedRequests();
    const outcomes = await Promise.all(
      targets.slice(0, 5).map((target) => round(target, "deploy", DEPLOY, completing)),
    );
    for (const outcome of outcomes)
      expect(textOf(outcome)).toBe(`Deployed ${release} of ledger to production`);
    // A deployment is logged before its request's completion, so once all five completions are in the
    // logs, so is every deployment there was: one, not five.
    await vi.waitFor(
      () => expect(completedRequests()).toBeGreaterThanOrEqual(completedBefore + 5),
      LOGS_WITHIN,
    );
    expect(effects("release deployed", "release", release)).toBe(1);
  });

  it("run a replayed create_service completion nowhere", async () => {
    const args = { name: "fleet-svc" };
    const createdBefore = effects("service created");
    const completing = await completingCreateService(args);
    const done = await round(fleet.instances[0]?.url ?? "", "create_service", args, completing);
    const replays = await Promise.all(
      fleet.instances.slice(1).map((instance) => round(instance.url, "create_service", args, completing)),
    );
    expect(textOf(done)).toBe("Created service fleet-svc on python3.12, size large");
    for (const replay of replays) expect(textOf(replay)).toBe(textOf(done));
    await vi.waitFor(() => expect(effects("service created") - createdBefore).toBe(1), LOGS_WITHIN);
  });

  it("complete 30 concurrent flows, 6 at a time, each create_service creating once", async () => {
    const driver = new Driver(fleet.publicUrl, fleet.token, "topology");
    const createdBefore = effects("service created");
    await driver.run(30, 6);
    expect(driver.flows.filter((flow) => !flow.ok)).toEqual([]);
    const creations = driver.flows.filter((flow) => flow.kind === "create_service").length;
    expect(new Set(driver.rounds.map((round) => round.upstream)).size).toBeGreaterThan(1);
    await vi.waitFor(() => expect(effects("service created") - createdBefore).toBe(creations), LOGS_WITHIN);
  });
}

describe("three instances behind round-robin nginx, one Redis", () => {
  flowsOnEveryTopology();

  it("refuse once-rounds while Redis is stopped, keep serving the other tools, and recover when it is back", async () => {
    await redis.kill();
    try {
      for (const instance of fleet.instances) {
        const refused = await round(instance.url, "deploy", DEPLOY).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(McpError);
        expect((refused as McpError).message).toMatch(/once/i);
        const ready = (await (await fetch(`${instance.origin}/readyz`)).json()) as { status: string };
        expect(ready.status).toBe("degraded");
      }
      expect(await workspaceThroughProxy("file:///srv/fleet")).toContain("file:///srv/fleet");
    } finally {
      await redis.start();
    }
    await untilEveryInstanceReady();
    another(await round(fleet.publicUrl, "deploy", DEPLOY));
  });

  it("refuse a create_service completion while Redis is stopped mid-flow, run nothing, and run it once when Redis is back", async () => {
    const args = { name: "midflow-svc" };
    const createdBefore = effects("service created");
    const created = () => effects("service created") - createdBefore;
    const completing = await completingCreateService(args);
    const unavailable = () =>
      fleet.instances
        .flatMap((instance) => instance.lines())
        .filter((line) => line.msg === "once-store unavailable: 'create_service' was not run").length;
    const unavailableBefore = unavailable();
    await redis.kill();
    try {
      for (const instance of fleet.instances) {
        const refused = await round(instance.url, "create_service", args, completing).catch(
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(McpError);
        expect((refused as McpError).message).toMatch(
          /^The once-store is unavailable, so 'create_service' \(which runs at most once per round\) was not run; .*retry$/,
        );
      }
      expect(await workspaceThroughProxy("file:///srv/midflow")).toContain("file:///srv/midflow");
    } finally {
      await redis.start();
    }
    // Each refusal is logged before its response leaves; once all three are in, nothing ran.
    await vi.waitFor(() => expect(unavailable()).toBe(unavailableBefore + 3), LOGS_WITHIN);
    expect(created()).toBe(0);
    await untilEveryInstanceReady();
    const done = await round(fleet.publicUrl, "create_service", args, completing);
    expect(textOf(done)).toBe("Created service midflow-svc on python3.12, size large");
    // Sent again, to every instance: the first outcome back, the service created once.
    const completedBefore = completedRequests();
    const replays = await Promise.all(
      fleet.instances.map((instance) => round(instance.url, "create_service", args, completing)),
    );
    for (const replay of replays) expect(textOf(replay)).toBe(textOf(done));
    await vi.waitFor(
      () => expect(completedRequests()).toBeGreaterThanOrEqual(completedBefore + 3),
      LOGS_WITHIN,
    );
    expect(created()).toBe(1);
  });
});

describe("three instances behind round-robin nginx, a Redis Cluster of three masters", () => {
  let cluster: RedisCluster;

  beforeAll(async () => {
    cluster = await RedisCluster.start({ masters: 3 });
    await fleet.moveTo({ REDIS_CLUSTER_URLS: cluster.urls.join(",") }, keys);
  }, 240_000);

  afterAll(() => cluster?.stop());

  flowsOnEveryTopology();
});

describe("three instances behind round-robin nginx, a primary watched by Sentinel", () => {
  let group: RedisSentinelGroup;

  beforeAll(async () => {
    group = await RedisSentinelGroup.start();
    await fleet.moveTo(
      {
        REDIS_SENTINEL_URLS: group.sentinels.map((sentinel) => sentinel.url).join(","),
        REDIS_SENTINEL_MASTER: group.name,
      },
      keys,
    );
  }, 240_000);

  afterAll(() => group?.stop());

  flowsOnEveryTopology();
});
