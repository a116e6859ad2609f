import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  endSession,
  getStream,
  initialize,
  legacyRequest,
  openSession,
  post,
  postStream,
} from "../src/legacy-wire.js";
import { Target } from "../src/target.js";

/**
 * Attacks on 2025-era sessions, by bob (a real user of the same authorization server) against
 * alice's session, on the reference server as one real process.
 */
let target: Target;
let alice: string;
let bob: string;

beforeAll(async () => {
  target = await Target.start();
  alice = await target.token("alice");
  bob = await target.token("bob");
}, 240_000);

afterAll(async () => {
  await target?.close();
});

describe("a 2025-era session", () => {
  it("cannot be used, listened to or ended with another user's token, and still serves its owner", async () => {
    const session = await openSession(target.instance.url, alice);
    const url = target.instance.url;

    expect((await post(url, bob, session, legacyRequest("tools/list"))).status).toBe(404);
    expect((await getStream(url, bob, session)).status).toBe(404);
    expect((await endSession(url, bob, session)).status).toBe(404);
    expect((await post(url, undefined, session, legacyRequest("tools/list"))).status).toBe(401);

    const owner = await post(url, alice, session, legacyRequest("tools/list"));
    expect(owner.status).toBe(200);
    expect(JSON.stringify(owner.json)).toContain("create_service");
  });

  it("is never one whose id the client chose (fixation)", async () => {
    const chosen = "fixed-by-an-attacker-0123456789";
    const opened = await initialize(target.instance.url, alice, chosen);
    expect(opened.sessionId).not.toBe(chosen);
    expect((await post(target.instance.url, alice, chosen, legacyRequest("tools/list"))).status).toBe(404);
  });

  it("replays its events to nobody else: another session's Last-Event-ID finds nothing", async () => {
    const session = await openSession(target.instance.url, alice);
    const url = target.instance.url;
    const call = await postStream(
      url,
      alice,
      session,
      legacyRequest("tools/call", { name: "create_service", arguments: { name: "ledger" } }),
    );
    const question = await call.next();
    expect(question.id).toBeDefined();

    const bobSession = await openSession(url, bob);
    expect((await getStream(url, bob, bobSession, question.id)).status).toBe(404);

    // Alice declines whatever she is asked, and her call ends normally on its own stream.
    let event = question;
    for (let round = 0; round < 10; round += 1) {
      const message = event.data as { id?: string | number; method?: string };
      if (message.method === undefined) break;
      const decline = { jsonrpc: "2.0", id: message.id, result: { action: "decline" } };
      expect((await post(url, alice, session, decline)).status).toBe(202);
      event = await call.next();
    }
    expect(event.data).toHaveProperty("result");
  });

  it("is capped per user: past the cap initialize is refused, and another user is unaffected", async () => {
    const url = target.instance.url;
    let opened = 0;
    let refused: { status: number; json: unknown } | undefined;
    // The default cap is 100 sessions per principal; a few past it prove the refusal holds.
    for (let attempt = 0; attempt < 105 && refused === undefined; attempt += 1) {
      const reply = await initialize(url, alice);
      if (reply.status === 200) opened += 1;
      else refused = reply;
    }
    // The cap's own refusal (a JSON-RPC error), not the per-user request rate limit.
    expect(refused?.status).toBe(429);
    expect(refused?.json).toMatchObject({ error: { code: -32600 } });
    expect(opened).toBeGreaterThan(0);
    expect((await initialize(url, bob)).status).toBe(200);
    expect(await target.alive()).toBe(true);
  });
});
