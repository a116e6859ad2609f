import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { RedisServer } from "@roundtrip/test-services";
import {
  another,
  approvalUrlOf,
  CONFIRMED,
  OPENED,
  type Retry,
  textOf,
} from "@roundtrip/test-support/rounds";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAcross, submitApproval } from "./support/approval-page.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { oneRound } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";
import { untilReady } from "./support/until-ready.js";

// Approvals and deployments of two instances on one real redis-server, through what a store does to
// them: restarted empty mid-approval, keys gone, and one release approved and completed twice.

let redis: RedisServer;
let as: LocalAuthServer;
let alice: string;
let keyDir: string;
let a: RunningServer;
let b: RunningServer;
const watch = new LeakWatch();

beforeAll(async () => {
  redis = await RedisServer.start();
  as = await startAuthorizationServer();
  alice = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-approval-faults-"));
  const keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
  const env = serverEnvironment(as, {
    SERVER_NAME: "roundtrip-fleet",
    REQUEST_STATE_KEY_FILE: keyFile,
    REDIS_URL: redis.url,
  });
  [a, b] = await Promise.all([startServer(env), startServer(env)]);
}, 180_000);

afterAll(async () => {
  for (const server of [a, b]) await server?.close();
  await as?.close();
  await redis?.stop();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

const DEPLOY = { service: "ledger", env: "production" };

const call = (server: RunningServer, retry: Retry = {}) =>
  oneRound(server.url, alice, watch, "deploy", DEPLOY, retry);

/** The deployments the fleet made: the deploy tool's stand-in for its side effect. */
const deployments = () =>
  [a, b].flatMap((server) => server.logs.lines()).filter((line) => line.msg === "release deployed").length;

/** A deploy up to its approval: the rounds to send back and the release's page. */
async function askApproval() {
  const asked = another(await call(a));
  const confirm = { requestState: asked.requestState, inputResponses: CONFIRMED };
  const approval = another(await call(b, confirm));
  const url = approvalUrlOf(approval);
  const release = /rel-[0-9a-f]{32}/.exec(url)?.[0] ?? "";
  return { release, url, confirm, opened: { requestState: approval.requestState, inputResponses: OPENED } };
}

/** The approval round answered before anyone approved: a state-only round that waits, to send back. */
async function waitRound(opened: Retry): Promise<Retry> {
  const waiting = another(await call(a, opened));
  expect(waiting.inputRequests).toBeUndefined();
  return { requestState: waiting.requestState };
}

const redisClient = () => createClient({ url: redis.url });

/** Runs `use` on a connection of its own to the test's redis-server. */
async function withRedis<T>(use: (client: ReturnType<typeof redisClient>) => Promise<T>): Promise<T> {
  const client = redisClient();
  client.on("error", () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

/** Deletes every key but those `keep` names, as expiry or eviction would; resolves to the kept keys. */
function forgetAllBut(keep: (key: string) => boolean): Promise<string[]> {
  return withRedis(async (client) => {
    const keys = await client.keys("*");
    const gone = keys.filter((key) => !keep(key));
    if (gone.length > 0) await client.del(gone);
    return keys.filter(keep);
  });
}

/**
 * Restarts redis-server empty on the same port, and waits for both instances to reconnect. Emptied
 * first, then shut down (SIGTERM), which ends the append-only file cleanly: the restart then starts
 * from exactly that, with no record the test means to be gone.
 */
async function restartEmpty(): Promise<void> {
  await withRedis((client) => client.flushAll());
  await redis.kill("SIGTERM");
  await redis.start();
  await Promise.all([untilReady(a), untilReady(b)]);
}

const lostPage = (release: string) =>
  `No approval of release ${release} is on record: it expired an hour after it was asked for, or the ` +
  "approval store lost it (restarted empty or evicted it). Nothing was deployed from this page; " +
  "call deploy again in your MCP client to start a new release.";

const lostRound = (release: string) =>
  `The approval of release ${release} is no longer on record: the approval store lost it (restarted ` +
  "empty or evicted it) or it expired an hour after it was asked for. Nothing was deployed; call " +
  "deploy again to start a new release.";

const deployedText = (release: string) => `Deployed ${release} of ledger to production`;
const againText = (release: string, at: string) =>
  `Release ${release} was already deployed at ${at}; nothing was deployed again`;

async function deployedAt(release: string): Promise<string> {
  const at = (await a.server.approvals.status(release))?.deployedAt;
  if (at === undefined) throw new Error(`release ${release} has no deployment record`);
  return at;
}

describe("a Redis restarted empty mid-approval", () => {
  it("turns a pending approval into a page that says it was lost, and a round that ends with the cause", async () => {
    const before = deployments();
    const { release, url, opened } = await askApproval();
    const wait = await waitRound(opened);
    const page = await openAcross(a, b, url);
    await restartEmpty();

    const path = new URL(url).pathname;
    for (const [server, request] of [
      [a, fetch(`${a.origin}${path}`, { headers: page.cookie })],
      [b, fetch(`${b.origin}${path}/sign-in`, { redirect: "manual" })],
      [a, submitApproval(a, page)],
    ] as const) {
      const response = await request;
      expect([server.origin, response.status, response.headers.get("content-type")]).toEqual([
        server.origin,
        404,
        "text/html; charset=utf-8",
      ]);
      expect(await response.text()).toContain(`<p>${lostPage(release)}</p>`);
    }
    for (const [server, round] of [
      [b, wait],
      [a, opened],
    ] as const) {
      const result = await call(server, round);
      expect(result).toMatchObject({ isError: true });
      expect(textOf(result)).toBe(lostRound(release));
    }
    // Nothing answered the loss by writing a new approval.
    expect(await a.server.approvals.status(release)).toBeUndefined();
    expect(deployments() - before).toBe(0);
  });

  it("ends the wait of an approved deploy on its next round, with the cause, instead of waiting on", async () => {
    const before = deployments();
    const { release, url, opened } = await askApproval();
    const wait = await waitRound(opened);
    const page = await openAcross(a, b, url);
    expect((await submitApproval(b, page)).status).toBe(200);
    await restartEmpty();

    const result = await call(b, wait);
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe(lostRound(release));
    expect(deployments() - before).toBe(0);
  });

  it("after the deployment, answers replayed rounds with the loss and never asks for the release again", async () => {
    const { release, url, confirm, opened } = await askApproval();
    const page = await openAcross(a, b, url);
    expect((await submitApproval(a, page)).status).toBe(200);
    expect(textOf(await call(b, opened))).toBe(deployedText(release));
    const before = deployments();
    await restartEmpty();

    // The confirmation replayed would have recorded the release afresh for a second approval.
    for (const [server, round] of [
      [a, opened],
      [b, confirm],
    ] as const) {
      const replay = await call(server, round);
      expect(replay).toMatchObject({ isError: true });
      expect(textOf(replay)).toBe(lostRound(release));
    }
    expect(await a.server.approvals.status(release)).toBeUndefined();
    expect(deployments() - before).toBe(0);
  });
});

describe("one release approved twice", () => {
  it("deploys once for two approvals on two pages, and answers each later approval and replay with when", async () => {
    const before = deployments();
    const { release, url, opened } = await askApproval();
    const first = await openAcross(a, b, url);
    const second = await openAcross(b, a, url);
    const approvals = await Promise.all([submitApproval(b, first), submitApproval(a, second)]);
    expect(approvals.map((response) => response.status)).toEqual([200, 200]);

    const completions = await Promise.all([call(a, opened), call(b, opened)]);
    expect(completions.map(textOf)).toEqual([deployedText(release), deployedText(release)]);
    const at = await deployedAt(release);
    expect(deployments() - before).toBe(1);

    // The once-rounds forgotten (evicted or expired) while the approval stays: the completion runs
    // again, on both instances, and finds the release deployed.
    const kept = await forgetAllBut((key) => key.includes(release));
    expect(kept.sort()).toEqual([
      `roundtrip:sealed-approval:${release}`,
      `roundtrip:sealed-approval:${release}/deployment`,
    ]);
    const replays = await Promise.all([call(b, opened), call(a, opened)]);
    expect(replays.map(textOf)).toEqual([againText(release, at), againText(release, at)]);

    // Approving once more, from either page, is answered with the deployment.
    for (const [server, page] of [
      [a, first],
      [b, second],
    ] as const) {
      const response = await submitApproval(server, page);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(
        `<p>Approved and deployed at ${at}. It is not deployed again; call deploy again for a new release.</p>`,
      );
    }
    const shown = await (
      await fetch(`${b.origin}${new URL(url).pathname}`, { headers: first.cookie })
    ).text();
    expect(shown).toContain(`Approved and deployed at ${at}.`);
    expect(deployments() - before).toBe(1);
  });

  it("answers rounds replayed after the approval and the once-rounds are gone with the deployment record", async () => {
    const { release, url, confirm, opened } = await askApproval();
    const page = await openAcross(a, b, url);
    expect((await submitApproval(a, page)).status).toBe(200);
    expect(textOf(await call(b, opened))).toBe(deployedText(release));
    const at = await deployedAt(release);
    const before = deployments();

    // Everything but the deployment record expires or is evicted: the approval and every round's outcome.
    expect(await forgetAllBut((key) => key.endsWith(`${release}/deployment`))).toHaveLength(1);
    // The confirmation replayed does not ask for the release again: no new approval to give.
    for (const [server, round] of [
      [a, opened],
      [b, confirm],
    ] as const) {
      expect(textOf(await call(server, round))).toBe(againText(release, at));
    }
    const response = await submitApproval(b, page);
    expect(await response.text()).toContain(`Approved and deployed at ${at}.`);
    expect(await a.server.approvals.status(release)).toMatchObject({ state: "deployed", deployedAt: at });
    expect(deployments() - before).toBe(0);
  });
});
