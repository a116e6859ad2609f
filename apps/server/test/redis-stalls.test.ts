import { randomBytes } from "node:crypto";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { LATEST_LEGACY_PROTOCOL_VERSION, silentLogger } from "@roundtrip/sdk/protocol";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { duringStall, RedisServer, type RedisStall, redisStalls } from "@roundtrip/test-services";
import { callTool } from "@roundtrip/test-support/wire";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSharedState, type SharedState } from "../src/index.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { initializeMessage, postLegacy } from "./support/raw-legacy.js";
import { type RunningServer, startServer } from "./support/running-server.js";

// Far from anything the machine's speed decides: each stall below lasts until the test ends it.
const DEADLINE_MS = 400;
const MISSED_DEADLINE = /Redis did not answer within 400 ms/;
const STALL_TEST_MS = 60_000;

let redis: RedisServer;
let primary: RedisServer;
let admin: ReturnType<typeof createClient>;
let as: LocalAuthServer;
let token: string;
let state: SharedState;
let app: RunningServer;
let charges = 0;

beforeAll(async () => {
  [redis, primary] = await Promise.all([RedisServer.start(), RedisServer.start()]);
  admin = createClient({ url: redis.url });
  admin.on("error", () => {});
  await admin.connect();
  as = await startAuthorizationServer();
  ({ accessToken: token } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
  // The bus seals under the keys it is given; this instance is the only one to hear it.
  const codec = new AesGcmRequestStateCodec([randomBytes(32)]);
  state = await openSharedState({ url: redis.url }, silentLogger, codec, {
    commandTimeoutMs: DEADLINE_MS,
    readinessTimeoutMs: DEADLINE_MS,
  });
  app = await startServer(serverEnvironment(as), { sharedState: state });
  app.server.mcp.tool("charge", { once: true }, () => {
    charges += 1;
    return "charged";
  });
  app.server.mcp.tool("ping", {}, () => "pong");
  await readyz((body) => body.status === "ready");
}, 180_000);

afterAll(async () => {
  await app?.close();
  await state?.close();
  admin?.destroy();
  await as?.close();
  await redis?.stop();
  await primary?.stop();
});

const stalls = redisStalls(() => ({ redis, primary, command: (args) => admin.sendCommand(args) }));

/** What /readyz says while `stall` lasts: Redis's refusal, or else that it missed the deadline. */
const reasonOf = (stall: RedisStall) => stall.refusal ?? MISSED_DEADLINE;

async function poll(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Readiness {
  status: string;
  sharedState?: string;
  reason?: string;
}

/** /readyz once, or until `until` holds of its body. */
async function readyz(until?: (body: Readiness) => boolean): Promise<{ status: number; body: Readiness }> {
  let answer: { status: number; body: Readiness } | undefined;
  await poll(async () => {
    const response = await fetch(`${app.origin}/readyz`);
    answer = { status: response.status, body: (await response.json()) as Readiness };
    return until === undefined || until(answer.body);
  });
  return answer as { status: number; body: Readiness };
}

describe("the reference server against a Redis that stalls or refuses writes", () => {
  it.each(stalls.all)(
    "/readyz says degraded while Redis is $name, naming why, and logs when it turns and turns back",
    async (stall) => {
      const logged = app.logs.lines().length;
      await duringStall(stall, async () => {
        const { status, body } = await readyz();
        expect(status).toBe(200);
        expect(body).toMatchObject({ status: "degraded", sharedState: "redis" });
        expect(body.reason).toMatch(reasonOf(stall));
      });
      await readyz((body) => body.status === "ready");
      const lines = app.logs.lines().slice(logged);
      const turned = lines.filter((line) =>
        line.msg?.startsWith("the shared state store cannot take writes"),
      );
      expect(turned).toEqual([
        expect.objectContaining({ level: 40, reason: expect.stringMatching(reasonOf(stall)) }),
      ]);
      expect(
        lines.filter((line) => line.msg?.startsWith("the shared state store takes writes again")),
      ).toHaveLength(1);
    },
    STALL_TEST_MS,
  );

  it.each(stalls.all)(
    "while Redis is $name, a once-tool is refused without running, and other tools answer",
    async (stall) => {
      const before = charges;
      await duringStall(stall, async () => {
        const refused = await callTool(app.url, "charge", { token });
        const error = refused.body?.error as { code?: number; message?: string } | undefined;
        expect(error?.code).toBe(-32603);
        expect(error?.message).toMatch(/once-store is unavailable, so 'charge' .* was not run/);
        const answered = await callTool(app.url, "ping", { token });
        expect(JSON.stringify(answered.body?.result)).toContain("pong");
      });
      expect(charges).toBe(before);
    },
    STALL_TEST_MS,
  );

  it.each([stalls.frozen, stalls.writesPaused])(
    "while Redis is $name, approvals and 2025-era sessions answer at the deadline: the store call rejects and a session 503s",
    async (stall) => {
      const principal = { clientId: "mcp-interactive", issuer: as.issuer, subject: "alice" };
      const release = `rel-${"0".repeat(32)}`;
      // Redis answers here, yet a busy machine can miss the deadline all the same: the server says to
      // retry shortly (503), and the client does, as a client told so would.
      let session = await legacyPost(initializeMessage("stalls"));
      await poll(async () => {
        if (session.status !== 503) return true;
        session = await legacyPost(initializeMessage("stalls"));
        return false;
      });
      const id = session.headers.get("mcp-session-id") ?? "";
      expect([session.status, id]).toEqual([200, expect.any(String)]);
      await duringStall(stall, async () => {
        await expect(
          app.server.approvals.ask(release, { service: "api", env: "staging", principal }),
        ).rejects.toThrow(MISSED_DEADLINE);
        for (const reply of [
          await legacyPost(initializeMessage("stalls")),
          await legacyPost(
            { jsonrpc: "2.0", id: 2, method: "tools/list" },
            { "mcp-session-id": id, "mcp-protocol-version": LATEST_LEGACY_PROTOCOL_VERSION },
          ),
        ]) {
          expect(reply.status).toBe(503);
          expect(reply.headers.get("retry-after")).toBe("1");
          expect(await reply.text()).toMatch(/retry shortly/);
        }
      });
    },
    STALL_TEST_MS,
  );
});

function legacyPost(message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postLegacy(app.url, { authorization: `Bearer ${token}`, ...headers }, message);
}
